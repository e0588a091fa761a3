SELECT global_position, tx_id::text AS tx_id, stream_id, stream_version, event_id, type,
       schema_version, data, metadata, recorded_at, prev_hash, hash
FROM events
WHERE stream_id = $1
  AND stream_version >= $2
  AND ($3::bigint IS NULL OR stream_version <= $3)
  AND ($4::timestamptz IS NULL OR recorded_at <= $4)
ORDER BY stream_version
