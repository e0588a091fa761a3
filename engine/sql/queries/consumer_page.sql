-- One page of a tenant's consumers in creation order, keyset on (created_at, consumer_id).
SELECT * FROM consumers
WHERE tenant_id = $1
  AND ($2::timestamptz IS NULL OR (created_at, consumer_id) > ($2::timestamptz, $3::text))
ORDER BY created_at, consumer_id
LIMIT $4
