UPDATE projection_checkpoints SET tx_id = $2::text::xid8, global_position = $3, updated_at = now()
WHERE name = $1
