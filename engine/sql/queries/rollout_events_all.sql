-- Every rollout event, in log order (folded per stream by the caller).
SELECT global_position, tx_id::text AS tx_id, stream_id, stream_version, event_id, type,
       schema_version, data, metadata, recorded_at, prev_hash, hash
FROM events
WHERE category = 'rollout'
ORDER BY global_position
