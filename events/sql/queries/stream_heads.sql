-- Current head (version, hash) of each of the given streams; absent streams have no row.
-- One index probe per stream (the planner cannot misjudge it on a fast-growing table).
SELECT s.stream_id, h.stream_version, h.hash
FROM unnest($1::text[]) AS s(stream_id)
CROSS JOIN LATERAL (
    SELECT e.stream_version, e.hash
    FROM events AS e
    WHERE e.stream_id = s.stream_id
    ORDER BY e.stream_version DESC
    LIMIT 1
) AS h
