SELECT d.* FROM deliveries d WHERE d.event_id = $1 AND d.tenant_id = $2 ORDER BY d.delivery_id
