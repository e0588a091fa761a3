-- Archived business events with this id (their bodies left with them): (tenant, stream id).
SELECT substring(stream_id FROM '^event-(.*)/') AS tenant_id, stream_id
FROM archived_streams
WHERE category = 'event' AND split_part(stream_id, '/', 2) = $1
  AND ($2::text IS NULL OR substring(stream_id FROM '^event-(.*)/') = $2)
ORDER BY stream_id
