-- A subscription's filters (DESIGN.md section 16) on its projection row: filters_key is the
-- index key of its filters (config.filters.index_key: the digest of the one equality every
-- event they hold for satisfies), NULL when they have none or there are no filters. Planning
-- (engine/sql/queries/ingest_candidates.sql) reads a keyed subscription only for an event that
-- satisfies its key, by these indexes. Rows written before this migration have NULL (read for
-- every event, as before) until their stream's next event or a rebuild.
ALTER TABLE subscriptions ADD COLUMN IF NOT EXISTS filters_key text;
CREATE INDEX IF NOT EXISTS subscriptions_filters_key ON subscriptions (tenant_id, filters_key)
    WHERE filters_key IS NOT NULL;
CREATE INDEX IF NOT EXISTS subscriptions_topics_unkeyed ON subscriptions USING gin (topics)
    WHERE filters_key IS NULL;
