-- One page of a tenant's dead letters, newest first, keyset on (updated_at, delivery_id).
SELECT * FROM deliveries
WHERE tenant_id = $1 AND state = 'DEAD_LETTER'
  AND ($3::timestamptz IS NULL OR (updated_at, delivery_id) < ($3::timestamptz, $4::text))
ORDER BY updated_at DESC, delivery_id DESC
LIMIT $2
