-- A subscription's deliveries in the given states whose state last changed in [since, until),
-- oldest first ($1 tenant or NULL for the operator, $2 subscription, $3 states, $4 since,
-- $5 until or NULL, $6 limit).
SELECT delivery_id, event_id, state, stream_version, updated_at FROM deliveries
WHERE subscription_id = $2
  AND ($1::text IS NULL OR tenant_id = $1::text)
  AND state = ANY($3::text[])
  AND updated_at >= $4::timestamptz
  AND ($5::timestamptz IS NULL OR updated_at < $5::timestamptz)
ORDER BY updated_at, delivery_id
LIMIT $6
