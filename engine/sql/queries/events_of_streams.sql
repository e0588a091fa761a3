-- Every hot event of the given streams, stream by stream in version order ($1: stream ids).
SELECT global_position, tx_id::text AS tx_id, stream_id, stream_version, event_id, type,
       schema_version, data, metadata, recorded_at, prev_hash, hash
FROM events
WHERE stream_id = ANY($1::text[])
ORDER BY stream_id, stream_version
