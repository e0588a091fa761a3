-- The body of the attempt statistics' incremental fold, after a CTE `page` of events (the
-- columns of attempt_stats_page.sql, and sign): each event's change to the counts, added into
-- {table} (sign -1 takes folded events back out: the archive). The fold of projections/attempt_stats.py written in SQL; tests hold the two
-- equal, and equal to what the old per-request query counted:
-- - an accepted attempt counts as ENDPOINT_ACCEPTED, a lost one as UNKNOWN_TRANSPORT, a failed
--   one as its `outcome` (RETRYABLE or UNKNOWN_TRANSPORT), in the hour it was recorded;
-- - a dead letter right after a failed attempt (the next version of its stream, in the same
--   append or a later one) moves that attempt to DEAD_LETTER, in the failure's hour;
-- - an attempt with a duration (accepted or failed; a lost one has none) counts in its row's
--   `latency` histogram, in the bucket width_bucket(duration_ms, $1) gives (the bounds of
--   LATENCY_BOUNDS_MS: the number of bounds at or below it, as bisect_right in the module).
-- Every writer of {table} holds the projection's checkpoint row lock (the projector's pass,
-- the archive's removal, a rebuild's swap), so the rows read here are the rows written.
, moves AS (
    SELECT p.stream_id, date_trunc('hour', p.recorded_at, 'UTC') AS hour,
           CASE p.type
               WHEN 'delivery.endpoint_accepted' THEN 'ENDPOINT_ACCEPTED'
               WHEN 'delivery.attempt_lost' THEN 'UNKNOWN_TRANSPORT'
               ELSE coalesce(p.outcome, 'FAILED')
           END AS outcome,
           p.sign AS delta,
           width_bucket(p.duration_ms, $1::float8[]) AS b
    FROM page AS p
    WHERE p.type IN ('delivery.endpoint_accepted', 'delivery.attempt_failed',
                     'delivery.attempt_lost')
    UNION ALL
    SELECT f.stream_id, date_trunc('hour', f.recorded_at, 'UTC'), m.outcome, m.delta * p.sign,
           width_bucket((f.doc ->> 'duration_ms')::float8, $1::float8[])
    FROM page AS p
    JOIN LATERAL (
        SELECT x.stream_id, x.recorded_at, convert_from(x.data, 'UTF8')::jsonb AS doc
        FROM events AS x
        WHERE x.stream_id = p.stream_id AND x.stream_version = p.stream_version - 1
          AND x.type = 'delivery.attempt_failed'
    ) AS f ON true
    CROSS JOIN LATERAL (
        VALUES (coalesce(f.doc ->> 'outcome', 'FAILED'), -1), ('DEAD_LETTER', 1)
    ) AS m(outcome, delta)
    WHERE p.type = 'delivery.dead_lettered'
), cells AS (
    SELECT d.subscription_id, m.hour, m.outcome, m.b, min(d.tenant_id) AS tenant_id,
           sum(m.delta) AS delta
    FROM moves AS m
    JOIN deliveries AS d ON d.delivery_id = substr(m.stream_id, 10)
    GROUP BY d.subscription_id, m.hour, m.outcome, m.b
), deltas AS (
    SELECT c.subscription_id, c.hour, c.outcome, min(c.tenant_id) AS tenant_id,
           sum(c.delta) AS delta,
           proj_latency_sum(
               proj_latency_one(c.b, c.delta::integer, cardinality($1::float8[]) + 1)
           ) AS latency
    FROM cells AS c
    GROUP BY c.subscription_id, c.hour, c.outcome
    HAVING sum(c.delta) <> 0
), merged AS (
    SELECT x.subscription_id, x.hour, x.outcome, x.tenant_id, x.delta, x.latency,
           t.attempts AS before
    FROM deltas AS x
    LEFT JOIN {table} AS t
           ON t.subscription_id = x.subscription_id AND t.hour = x.hour
          AND t.outcome = x.outcome
), changed AS (
    UPDATE {table} AS t SET attempts = t.attempts + m.delta,
                            latency = proj_latency_add(t.latency, m.latency)
    FROM merged AS m
    WHERE m.before IS NOT NULL AND m.before + m.delta <> 0
      AND t.subscription_id = m.subscription_id AND t.hour = m.hour AND t.outcome = m.outcome
    RETURNING 1
), emptied AS (
    DELETE FROM {table} AS t
    USING merged AS m
    WHERE m.before IS NOT NULL AND m.before + m.delta = 0
      AND t.subscription_id = m.subscription_id AND t.hour = m.hour AND t.outcome = m.outcome
    RETURNING 1
), added AS (
    INSERT INTO {table} (subscription_id, hour, outcome, tenant_id, attempts, latency)
    SELECT m.subscription_id, m.hour, m.outcome, m.tenant_id, m.delta, m.latency
    FROM merged AS m
    WHERE m.before IS NULL
    RETURNING 1
)
