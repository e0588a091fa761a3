-- The attempt statistics' fold of given events ($1: their global positions; those of other
-- categories are left out), into {table}: a rebuild's swap catches its fresh table up with it.
WITH page AS (
    SELECT
-- include: attempt_stats_page
    , 1 AS sign
    FROM events AS e
    WHERE e.global_position = ANY($1::bigint[]) AND e.category = 'delivery'
)
-- include: attempt_stats_fold
SELECT count(*) AS events FROM page
