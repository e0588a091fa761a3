-- The delivery log's filters after a ledger query's leading one, its keyset and its page
-- (included by deliveries_log_by_state.sql and deliveries_log_by_id.sql, which read the
-- ledger's own indexes; the keys queries include deliveries_log_key_filters.sql). The
-- parameters are theirs; $14 and $15 are the start of a delivery id and of an event id.
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
  AND ($14::text IS NULL OR starts_with(delivery_id, $14))
  AND ($15::text IS NULL OR starts_with(event_id, $15))
  AND ($10::text IS NULL OR subscription_id IN (
      SELECT s.subscription_id FROM subscriptions AS s
      WHERE s.tenant_id = $1 AND s.consumer_id = $10))
  AND (created_at, delivery_id)
      < (COALESCE($11::timestamptz, 'infinity'), COALESCE($12::text, ''))
ORDER BY created_at DESC, delivery_id DESC
LIMIT $13
