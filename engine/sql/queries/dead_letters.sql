-- One page of a tenant's dead letters, newest first, keyset on (updated_at, delivery_id);
-- only of one consumer's subscriptions when $5 is set.
SELECT * FROM deliveries
WHERE tenant_id = $1 AND state = 'DEAD_LETTER'
  AND ($3::timestamptz IS NULL OR (updated_at, delivery_id) < ($3::timestamptz, $4::text))
  AND ($5::text IS NULL OR subscription_id IN (
      SELECT s.subscription_id FROM subscriptions AS s
      WHERE s.tenant_id = $1 AND s.consumer_id = $5))
ORDER BY updated_at DESC, delivery_id DESC
LIMIT $2
