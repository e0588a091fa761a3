-- Changes whenever any key event commits (the log is append-only, so the count only grows).
SELECT count(*) AS n, coalesce(max(global_position), 0) AS last
FROM events
WHERE category = 'key'
