-- Fewer index bytes per ingested event (bench/HISTORY.md "Session 5: ingest"; the plans and
-- index scans of `bench_ingest.py --explain`). Each event writes 11 log rows (10 of them
-- delivery rows) and 10 ledger rows; two of the index entries they carried served no query:
--
-- * deliveries_subscription was (subscription_id, event_id): no query looks a delivery up by
--   subscription and event (recovery and the delivery list filter by subscription alone;
--   by event, deliveries_tenant_event serves). On (subscription_id) alone the entries of one
--   subscription deduplicate into posting lists: the largest ledger index (about 116 bytes
--   per delivery) becomes a small one, with the same plans for those queries.
-- * events_category_position serves the small categories (key ring, rollouts, archive
--   candidates of category 'event', ...); every query of category 'delivery' is bounded by
--   recorded_at (events_recorded_at) or reads the whole log. Delivery rows leave it.
DROP INDEX IF EXISTS deliveries_subscription;
CREATE INDEX IF NOT EXISTS deliveries_subscription ON deliveries (subscription_id);

DROP INDEX IF EXISTS events_category_position;
CREATE INDEX IF NOT EXISTS events_category_position ON events (category, global_position)
    WHERE category <> 'delivery';
