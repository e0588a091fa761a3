-- Keyset page of the whole log by global position (for rebuild and audit; not for tailing).
SELECT global_position, tx_id::text AS tx_id, stream_id, stream_version, event_id, type,
       schema_version, data, metadata, recorded_at, prev_hash, hash
FROM events
WHERE global_position > $1
  AND ($3::timestamptz IS NULL OR recorded_at <= $3)
ORDER BY global_position
LIMIT $2
