-- The delivery log (GET /v1/deliveries: filters, search, keyset pages; issue 39). Each access
-- path the log offers has an index whose order is the page's order, so a first page reads
-- about `limit` entries whatever the tenant holds (bench/HISTORY.md "Session 9"):
--   no filter or a time range       -> deliveries_log (tenant, created_at, id)
--   subscriptionId (an endpoint)    -> deliveries_log_subscription
--   state                           -> deliveries_log_state
--   eventType (topic)               -> deliveries_log_topic
--   eventId / deliveryId            -> deliveries_event / the primary key
-- Other filters combined with one of these are checked on the rows that index yields.
-- Ascending indexes: a page walks them backwards, and the keyset row comparison
-- (created_at, delivery_id) < (...) is an index condition.
CREATE INDEX IF NOT EXISTS deliveries_log ON deliveries (tenant_id, created_at, delivery_id);
CREATE INDEX IF NOT EXISTS deliveries_log_subscription
    ON deliveries (subscription_id, created_at, delivery_id);
-- deliveries_subscription (subscription_id) is a prefix of it: recovery's reads by
-- subscription walk the new one, and every ledger write carries one index entry fewer.
DROP INDEX IF EXISTS deliveries_subscription;
CREATE INDEX IF NOT EXISTS deliveries_log_state
    ON deliveries (tenant_id, state, created_at, delivery_id);
CREATE INDEX IF NOT EXISTS deliveries_log_topic
    ON deliveries (tenant_id, topic, created_at, delivery_id);
