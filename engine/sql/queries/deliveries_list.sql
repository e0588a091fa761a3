-- A tenant's deliveries, newest first, optionally of one subscription and/or in one state,
-- and only of one consumer's subscriptions when $5 is set.
SELECT * FROM deliveries
WHERE tenant_id = $1
  AND ($2::text IS NULL OR subscription_id = $2)
  AND ($3::text IS NULL OR state = $3)
  AND ($5::text IS NULL OR subscription_id IN (
      SELECT s.subscription_id FROM subscriptions AS s
      WHERE s.tenant_id = $1 AND s.consumer_id = $5))
ORDER BY created_at DESC, delivery_id
LIMIT $4
