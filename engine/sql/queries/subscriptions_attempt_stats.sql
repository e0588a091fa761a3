-- subscription_attempt_stats.sql for several subscriptions of one tenant at once ($2, at most
-- 100: one range of the primary key each), for `GET /v1/attempt-stats`.
SELECT subscription_id, hour, outcome, attempts, latency
FROM proj_attempt_stats
WHERE subscription_id = ANY($2::text[]) AND hour >= $3 AND tenant_id = $1
ORDER BY subscription_id, hour, outcome
