-- The attempt statistics' fold of given events ($2: their global positions; $1 the latency bounds; those of other
-- categories are left out), into {table}: a rebuild's swap catches its fresh table up with it.
WITH page AS (
    SELECT
-- include: attempt_stats_page
    , 1 AS sign
    FROM events AS e
    WHERE e.global_position = ANY($2::bigint[]) AND e.category = 'delivery'
)
-- include: attempt_stats_fold
SELECT count(*) AS events FROM page
