-- Current head (version, hash) of each of the given streams; absent streams have no row.
-- One index probe per stream (the planner cannot misjudge it on a fast-growing table). An
-- archived stream answers with its tombstone's head and archived = true: it takes no append.
SELECT s.stream_id, h.stream_version, h.hash, h.archived
FROM unnest($1::text[]) AS s(stream_id)
CROSS JOIN LATERAL (
    (SELECT a.final_version AS stream_version, a.final_hash AS hash, true AS archived
     FROM archived_streams AS a
     WHERE a.stream_id = s.stream_id)
    UNION ALL
    (SELECT e.stream_version, e.hash, false
     FROM events AS e
     WHERE e.stream_id = s.stream_id
     ORDER BY e.stream_version DESC
     LIMIT 1)
    LIMIT 1
) AS h
