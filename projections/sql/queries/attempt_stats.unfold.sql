-- Before the archive removes streams ($2; $1 the latency bounds), the attempt statistics give back what they folded
-- of them: every delivery event of those streams up to the projection's checkpoint, with sign
-- -1, so the rows stay the fold of the hot log (`projections rebuild --verify` finds them
-- equal). The caller holds the checkpoint row's lock, so the checkpoint read here is the one
-- the rows were folded up to.
WITH page AS (
    SELECT
-- include: attempt_stats_page
    , -1 AS sign
    FROM events AS e
    JOIN projection_checkpoints AS c ON c.name = 'attempt_stats'
    WHERE e.stream_id = ANY($2::text[]) AND e.category = 'delivery'
      AND (e.tx_id, e.global_position) <= (c.tx_id, c.global_position)
)
-- include: attempt_stats_fold
SELECT count(*) AS events FROM page
