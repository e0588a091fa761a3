-- Attempts admitted with both signatures under a rollout: subscription and admission time.
-- $1: rollout id; $2: lower bound of recorded_at (the rollout's lifetime).
SELECT convert_from(a.data, 'UTF8')::jsonb ->> 'subscription_id' AS subscription_id,
       convert_from(a.data, 'UTF8')::jsonb ->> 'rollout_stage' AS stage,
       (convert_from(a.data, 'UTF8')::jsonb ->> 'at')::timestamptz AS at,
       a.stream_id
FROM events AS a
WHERE a.category = 'delivery'
  AND a.type = 'delivery.attempt_admitted'
  AND a.recorded_at >= $2
  AND convert_from(a.data, 'UTF8')::jsonb ->> 'rollout_id' = $1
  AND convert_from(a.data, 'UTF8')::jsonb ->> 'signing_mode' = 'dual'
