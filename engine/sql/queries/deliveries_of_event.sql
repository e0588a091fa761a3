SELECT delivery_id, subscription_id FROM deliveries
WHERE tenant_id = $1 AND event_id = $2 ORDER BY delivery_id
