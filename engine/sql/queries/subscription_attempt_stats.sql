-- Attempts of one tenant's subscription since $3, by hour and outcome (the console's chart),
-- from the attempt statistics the projector keeps (projections/attempt_stats.py): one range of
-- the primary key, at most 25 hours x a few outcomes of rows however many deliveries those
-- hours had (it used to join every delivery of the window to its events).
SELECT hour, outcome, attempts, latency
FROM proj_attempt_stats
WHERE subscription_id = $2 AND hour >= $3 AND tenant_id = $1
ORDER BY hour, outcome
