-- Latency of the attempt statistics (issue 39, item 5): each row of proj_attempt_stats keeps,
-- beside its count, a histogram of its attempts' durations (`latency`: one count per bucket of
-- projections/attempt_stats.py LATENCY_BOUNDS_MS, fixed log-spaced bounds, 8 per decade from
-- 1 ms to 100 s: 42 buckets, 168 bytes), folded by the same projector pass as the counts, so
-- `attempt-stats` serves p50/p90/p99 from the rows it already reads and no delivery is scanned
-- at read time. No new row: the column rides on the rows each pass already updates (one per
-- subscription, hour and outcome), so the WAL stays one row image per bucket per pass.
-- Rows folded before this migration have no durations: the table and its checkpoint are
-- emptied, and the projector folds the hot log again from its start (in its usual pages).
TRUNCATE proj_attempt_stats;
DELETE FROM projection_checkpoints WHERE name = 'attempt_stats';
ALTER TABLE proj_attempt_stats ADD COLUMN IF NOT EXISTS latency integer[] NOT NULL;

-- The element-wise sum of two histograms (NULL is the empty one).
CREATE OR REPLACE FUNCTION proj_latency_add(a integer[], b integer[]) RETURNS integer[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN a IS NULL THEN b WHEN b IS NULL THEN a ELSE ARRAY(
        SELECT coalesce(x, 0) + coalesce(y, 0)
        FROM unnest(a, b) WITH ORDINALITY AS u(x, y, i)
        ORDER BY i) END
$$;

-- The sum of histograms over a group.
CREATE OR REPLACE AGGREGATE proj_latency_sum(integer[]) (
    SFUNC = proj_latency_add, STYPE = integer[]
);

-- A histogram of `size` buckets with `n` in bucket `b` (0-based; NULL: none, all zeros).
CREATE OR REPLACE FUNCTION proj_latency_one(b integer, n integer, size integer)
RETURNS integer[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN b IS NULL THEN array_fill(0, ARRAY[size])
        ELSE array_fill(0, ARRAY[b]) || n || array_fill(0, ARRAY[size - b - 1]) END
$$;
