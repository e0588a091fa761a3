-- Attempts of one tenant's subscription since $3, by hour and outcome (the console's chart).
-- A delivery with an attempt since $3 was updated since $3, so only those streams are read.
SELECT date_trunc('hour', e.recorded_at) AS hour,
       CASE e.type
           WHEN 'delivery.endpoint_accepted' THEN 'ENDPOINT_ACCEPTED'
           WHEN 'delivery.attempt_lost' THEN 'UNKNOWN_TRANSPORT'
           ELSE coalesce(convert_from(e.data, 'UTF8')::jsonb ->> 'outcome', 'FAILED')
       END AS outcome,
       count(*) AS attempts
FROM deliveries AS d
JOIN events AS e ON e.stream_id = 'delivery-' || d.delivery_id
WHERE d.tenant_id = $1 AND d.subscription_id = $2 AND d.updated_at >= $3
  AND e.recorded_at >= $3
  AND e.type IN ('delivery.endpoint_accepted', 'delivery.attempt_failed', 'delivery.attempt_lost')
GROUP BY 1, 2
ORDER BY 1, 2
