-- The last committed event of the log in this snapshot, in commit-safe order (none: no row).
SELECT tx_id::text AS tx_id, global_position FROM events
ORDER BY tx_id DESC, global_position DESC
LIMIT 1
