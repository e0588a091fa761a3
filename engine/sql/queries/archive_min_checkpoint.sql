-- How far every asynchronous projection has read: streams past it are not archived yet.
SELECT tx_id::text AS tx_id, global_position FROM projection_checkpoints
WHERE name = ANY($1::text[])
ORDER BY tx_id, global_position
LIMIT 1
