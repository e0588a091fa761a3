-- A tenant's deliveries, newest first, optionally of one subscription and/or in one state.
SELECT * FROM deliveries
WHERE tenant_id = $1
  AND ($2::text IS NULL OR subscription_id = $2)
  AND ($3::text IS NULL OR state = $3)
ORDER BY created_at DESC, delivery_id
LIMIT $4
