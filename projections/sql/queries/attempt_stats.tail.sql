-- The projector's pass over the attempt statistics: the next page of the log after the
-- checkpoint ($2 tx_id, $3 position; commit-safe, as tail.sql), at most $4 events (the fold's
-- latency bounds: $1), folded into
-- {table} in this one statement (the fold counts delivery events only). Every category is read,
-- so the checkpoint moves past subscription, key or receipt events too and a later pass never
-- reads them again. Nothing but the page's size and last position leaves the server.
WITH page AS (
    SELECT
-- include: attempt_stats_page
    , 1 AS sign
    FROM events AS e
    WHERE (e.tx_id, e.global_position) > ($2::text::xid8, $3::bigint)
      AND e.tx_id < pg_snapshot_xmin(pg_current_snapshot())
    ORDER BY e.tx_id, e.global_position
    LIMIT $4
)
-- include: attempt_stats_fold
SELECT n.events, l.tx_id::text AS tx_id, l.global_position
FROM (SELECT count(*) AS events FROM page) AS n
LEFT JOIN LATERAL (
    SELECT p.tx_id, p.global_position FROM page AS p
    ORDER BY p.tx_id DESC, p.global_position DESC
    LIMIT 1
) AS l ON true
