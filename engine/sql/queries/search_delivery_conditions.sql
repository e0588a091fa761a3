-- A search's conditions on one delivery (its log keys `k`, its ledger row `d`): included by
-- search_deliveries.sql and search_events.sql (there inside an EXISTS). $1 tenant,
-- $2 subscription, $4 state, $5 evidence, $9 the last attempt's status code, $10 a reason
-- code (the last attempt's, or the dead letter's), $11 consumer (a portal session's, or the
-- consumerId asked for: only its subscriptions' deliveries).
  AND ($2::text IS NULL OR k.subscription_id = $2)
  AND ($4::text IS NULL OR d.state = $4)
  AND ($5::text IS NULL
       OR ($5 = 'APPLICATION_CONFIRMED' AND d.application = 'CONFIRMED')
       OR ($5 = 'ENDPOINT_ACCEPTED' AND d.accepted_at IS NOT NULL)
       OR ($5 = 'NONE' AND d.accepted_at IS NULL))
  AND ($9::integer IS NULL OR d.last_status = $9)
  AND ($10::text IS NULL OR d.last_code = $10 OR d.dead_letter_reason = $10)
  AND ($11::text IS NULL OR k.subscription_id IN (
      SELECT s.subscription_id FROM subscriptions AS s
      WHERE s.tenant_id = $1 AND s.consumer_id = $11))
