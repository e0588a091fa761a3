-- The next business-event streams (oldest first, keyset by position) that may be closed:
-- created up to $2, not archived yet. $1: after position, $3: page size.
SELECT e.stream_id, e.global_position, e.recorded_at, e.type, e.schema_version, e.data
FROM events AS e
WHERE e.category = 'event'
  AND e.stream_version = 1
  AND e.global_position > $1
  AND e.global_position <= $2
  AND NOT EXISTS (SELECT 1 FROM archived_streams AS a WHERE a.stream_id = e.stream_id)
ORDER BY e.global_position
LIMIT $3
