-- One page of a tenant's subscriptions from the projection, keyset on (created_at, id);
-- only one consumer's when $5 is set.
SELECT subscription_id, created_at FROM subscriptions
WHERE tenant_id = $1
  AND ($5::text IS NULL OR consumer_id = $5)
  AND ($2::timestamptz IS NULL OR (created_at, subscription_id) > ($2::timestamptz, $3::text))
ORDER BY created_at, subscription_id
LIMIT $4
