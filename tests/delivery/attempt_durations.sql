-- The durations of a tenant's subscription's attempts recorded since $3, read from the log
-- (the oracle of the latency histogram): every accepted or failed attempt, its hour and its
-- duration_ms (a lost attempt has none). tests/delivery/stats_support.py buckets them.
SELECT date_trunc('hour', e.recorded_at) AS hour,
       (convert_from(e.data, 'UTF8')::jsonb ->> 'duration_ms')::float8 AS ms
FROM deliveries AS d
JOIN events AS e ON e.stream_id = 'delivery-' || d.delivery_id
WHERE d.tenant_id = $1 AND d.subscription_id = $2 AND d.updated_at >= $3
  AND e.recorded_at >= $3
  AND e.type IN ('delivery.endpoint_accepted', 'delivery.attempt_failed')
