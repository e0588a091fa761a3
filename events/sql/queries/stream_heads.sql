-- Current head (version, hash) of each of the given streams; absent streams have no row.
SELECT DISTINCT ON (stream_id) stream_id, stream_version, hash
FROM events
WHERE stream_id = ANY($1::text[])
ORDER BY stream_id, stream_version DESC
