-- A subscription's deliveries in the given states whose state last changed in [since, until),
-- oldest first ($1 tenant or NULL for the operator, $2 subscription, $3 states, $4 since,
-- $5 until or NULL, $6 limit). The subscription's deliveries come from the delivery log's keys
-- (delivery_log_subscription, migration 1000); the ledger row of each is checked. A row
-- planned at or after `until` cannot have changed before it.
SELECT d.delivery_id, d.event_id, d.state, d.stream_version, d.updated_at
FROM delivery_log AS k
JOIN deliveries AS d ON d.delivery_id = k.delivery_id
WHERE k.subscription_id = $2
  AND ($1::text IS NULL OR k.tenant_id = $1::text)
  AND ($5::timestamptz IS NULL OR k.created_at < $5::timestamptz)
  AND d.state = ANY($3::text[])
  AND d.updated_at >= $4::timestamptz
  AND ($5::timestamptz IS NULL OR d.updated_at < $5::timestamptz)
ORDER BY d.updated_at, d.delivery_id
LIMIT $6
