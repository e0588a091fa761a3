-- One page of the delivery log (GET /v1/deliveries), newest first, keyset on
-- (created_at, delivery_id). Every deliveries_log*.sql file has this same WHERE (a test holds
-- them equal) after a leading filter of its own, a plain equality, so its index is the one
-- the plan walks even as a generic plan of the prepared statement. $1 tenant, $2 subscription, $3 topic, $4 state,
-- $5 evidence, $6 since, $7 until, $8 event id, $9 delivery id, $10 consumer (a portal
-- session), $11/$12 the cursor, $13 limit.
-- Leading filter: state (deliveries_log_state index).
SELECT * FROM deliveries
WHERE tenant_id = $1
  AND state = $4  -- the leading filter
  AND ($2::text IS NULL OR subscription_id = $2)
  AND ($3::text IS NULL OR topic = $3)
  AND ($4::text IS NULL OR state = $4)
  AND ($5::text IS NULL
       OR ($5 = 'APPLICATION_CONFIRMED' AND application = 'CONFIRMED')
       OR ($5 = 'ENDPOINT_ACCEPTED' AND accepted_at IS NOT NULL)
       OR ($5 = 'NONE' AND accepted_at IS NULL))
  AND created_at >= COALESCE($6::timestamptz, '-infinity')
  AND created_at < COALESCE($7::timestamptz, 'infinity')
  AND ($8::text IS NULL OR event_id = $8)
  AND ($9::text IS NULL OR delivery_id = $9)
  AND ($10::text IS NULL OR subscription_id IN (
      SELECT s.subscription_id FROM subscriptions AS s
      WHERE s.tenant_id = $1 AND s.consumer_id = $10))
  AND (created_at, delivery_id)
      < (COALESCE($11::timestamptz, 'infinity'), COALESCE($12::text, ''))
ORDER BY created_at DESC, delivery_id DESC
LIMIT $13
