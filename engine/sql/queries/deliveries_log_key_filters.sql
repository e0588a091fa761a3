-- The delivery log's filters after a keys query's leading one (deliveries_log.sql,
-- deliveries_log_by_event/_by_subscription/_by_topic.sql), its keyset and its page:
-- as deliveries_log_filters.sql, the keys' columns from delivery_log (k), the rest from the
-- ledger row (d). The parameters are theirs; $14 and $15 are the start of a delivery id and of
-- an event id. Nothing more is asked of the join than the id
-- (a key is its row's: written with it, never changed): a second join column makes the
-- planner expect one row from the join and sort the tenant's rows instead of walking the
-- keys' order (bench/HISTORY.md "Session 11").
  AND ($2::text IS NULL OR k.subscription_id = $2)
  AND ($3::text IS NULL OR k.topic = $3)
  AND ($4::text IS NULL OR d.state = $4)
  AND ($5::text IS NULL
       OR ($5 = 'APPLICATION_CONFIRMED' AND d.application = 'CONFIRMED')
       OR ($5 = 'ENDPOINT_ACCEPTED' AND d.accepted_at IS NOT NULL)
       OR ($5 = 'NONE' AND d.accepted_at IS NULL))
  AND k.created_at >= COALESCE($6::timestamptz, '-infinity')
  AND k.created_at < COALESCE($7::timestamptz, 'infinity')
  AND ($8::text IS NULL OR k.event_id = $8)
  AND ($9::text IS NULL OR k.delivery_id = $9)
  AND ($14::text IS NULL OR starts_with(k.delivery_id, $14))
  AND ($15::text IS NULL OR starts_with(k.event_id, $15))
  AND ($10::text IS NULL OR k.subscription_id IN (
      SELECT s.subscription_id FROM subscriptions AS s
      WHERE s.tenant_id = $1 AND s.consumer_id = $10))
  AND (k.created_at, k.delivery_id)
      < (COALESCE($11::timestamptz, 'infinity'), COALESCE($12::text, ''))
ORDER BY k.created_at DESC, k.delivery_id DESC
LIMIT $13
