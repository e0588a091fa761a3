SELECT d.* FROM deliveries d WHERE d.tenant_id = $1 AND d.event_id = $2 ORDER BY d.delivery_id
