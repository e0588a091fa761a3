-- The attempt-stats query before the attempt statistics projection (main at 77a2c3b): what the
-- rollup must count, computed from the log on every call. tests/delivery/test_attempt_stats.py
-- holds the projection to it; bench/bench_attempt_stats.py times it as the "before".
-- Attempts of one tenant's subscription since $3, by hour and outcome (the console's chart).
-- A delivery with an attempt since $3 was updated since $3, so only those streams are read.
-- A failed attempt whose delivery was dead-lettered with it (the next event of its stream)
-- counts as DEAD_LETTER.
SELECT date_trunc('hour', e.recorded_at) AS hour,
       CASE
           WHEN e.type = 'delivery.endpoint_accepted' THEN 'ENDPOINT_ACCEPTED'
           WHEN e.type = 'delivery.attempt_lost' THEN 'UNKNOWN_TRANSPORT'
           WHEN dead.stream_id IS NOT NULL THEN 'DEAD_LETTER'
           ELSE coalesce(convert_from(e.data, 'UTF8')::jsonb ->> 'outcome', 'FAILED')
       END AS outcome,
       count(*) AS attempts
FROM deliveries AS d
JOIN events AS e ON e.stream_id = 'delivery-' || d.delivery_id
LEFT JOIN events AS dead
       ON e.type = 'delivery.attempt_failed' AND dead.stream_id = e.stream_id
      AND dead.stream_version = e.stream_version + 1 AND dead.type = 'delivery.dead_lettered'
WHERE d.tenant_id = $1 AND d.subscription_id = $2 AND d.updated_at >= $3
  AND e.recorded_at >= $3
  AND e.type IN ('delivery.endpoint_accepted', 'delivery.attempt_failed', 'delivery.attempt_lost')
GROUP BY 1, 2
ORDER BY 1, 2
