-- Figures of one rollout from the log: attempts admitted under it (their admission records
-- rollout_id, the rollout stage and the signing mode), with their outcome when decided.
-- Acceptance = attempts with delivery.endpoint_accepted / decided attempts.
-- $1: rollout id; $2: a lower bound of the admissions' recorded_at (the rollout's creation less
-- a margin), so the scan covers only the rollout's lifetime (events_recorded_at_brin index).
WITH admitted AS (
    SELECT a.stream_id, a.stream_version,
           (convert_from(a.data, 'UTF8')::jsonb ->> 'attempt')::int AS attempt,
           convert_from(a.data, 'UTF8')::jsonb ->> 'rollout_stage' AS stage,
           convert_from(a.data, 'UTF8')::jsonb ->> 'signing_mode' AS mode,
           convert_from(a.data, 'UTF8')::jsonb ->> 'subscription_id' AS subscription_id
    FROM events AS a
    WHERE a.category = 'delivery'
      AND a.type = 'delivery.attempt_admitted'
      AND a.recorded_at >= $2
      AND convert_from(a.data, 'UTF8')::jsonb ->> 'rollout_id' = $1
), judged AS (
    SELECT ad.stage, ad.mode, ad.subscription_id, o.accepted, o.decided
    FROM admitted AS ad
    -- include: admitted_attempt_outcome
)
SELECT stage, mode,
       count(*) AS attempts,
       count(*) FILTER (WHERE decided) AS decided,
       count(*) FILTER (WHERE accepted) AS accepted,
       count(DISTINCT subscription_id) AS subscriptions
FROM judged
GROUP BY stage, mode
ORDER BY stage, mode
