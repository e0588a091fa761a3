SELECT * FROM deliveries WHERE delivery_id = $1 AND tenant_id = $2
