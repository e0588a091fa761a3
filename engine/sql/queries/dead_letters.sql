SELECT * FROM deliveries WHERE tenant_id = $1 AND state = 'DEAD_LETTER'
ORDER BY updated_at DESC LIMIT $2
