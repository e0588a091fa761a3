SELECT tx_id::text AS tx_id, global_position FROM projection_checkpoints WHERE name = $1 FOR UPDATE
