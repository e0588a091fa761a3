-- Streams whose hot head is not the version the segment holds (or that are archived already).
SELECT s.stream_id
FROM unnest($1::text[], $2::bigint[]) AS s(stream_id, version)
WHERE (SELECT max(e.stream_version) FROM events AS e WHERE e.stream_id = s.stream_id)
          IS DISTINCT FROM s.version
   OR EXISTS (SELECT 1 FROM archived_streams AS a WHERE a.stream_id = s.stream_id)
