-- Consumers (the tenant's own customers) and the consumer a subscription belongs to.
-- Projection: one row per consumer, maintained inline with the `consumer-<tenant>-<id>` streams.
CREATE TABLE IF NOT EXISTS consumers (
    stream_id text PRIMARY KEY,
    tenant_id text NOT NULL,
    consumer_id text NOT NULL,
    name text NOT NULL,
    metadata text NOT NULL,
    disabled boolean NOT NULL,
    stream_version bigint NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    UNIQUE (tenant_id, consumer_id)
);
CREATE INDEX IF NOT EXISTS consumers_tenant_page ON consumers (tenant_id, created_at, consumer_id);

-- A subscription's consumer (NULL: consumer-less); set at registration, never changed.
ALTER TABLE subscriptions ADD COLUMN IF NOT EXISTS consumer_id text;
CREATE INDEX IF NOT EXISTS subscriptions_tenant_consumer
    ON subscriptions (tenant_id, consumer_id, created_at);
