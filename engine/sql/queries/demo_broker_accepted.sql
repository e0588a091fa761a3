SELECT delivery_id
FROM deliveries
WHERE subscription_id = $1 AND state = 'ENDPOINT_ACCEPTED'
ORDER BY delivery_id
