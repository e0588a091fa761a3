-- Canonical delivery bodies, stored once per business event (the exact bytes signed and sent).
CREATE TABLE IF NOT EXISTS event_bodies (
    event_id text PRIMARY KEY,
    payload_digest text NOT NULL,
    body bytea NOT NULL,
    topic text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE OR REPLACE FUNCTION hookproof_bodies_immutable() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'event_bodies is immutable: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;
DROP TRIGGER IF EXISTS event_bodies_immutable ON event_bodies;
CREATE TRIGGER event_bodies_immutable BEFORE UPDATE OR DELETE ON event_bodies
    FOR EACH ROW EXECUTE FUNCTION hookproof_bodies_immutable();

-- Projection: the delivery ledger, inline with the delivery streams; also the dispatch queue.
CREATE TABLE IF NOT EXISTS deliveries (
    delivery_id text PRIMARY KEY,
    event_id text NOT NULL,
    subscription_id text NOT NULL,
    tenant_id text NOT NULL,
    generation integer NOT NULL,
    endpoint text NOT NULL,
    endpoint_digest text NOT NULL,
    payload_digest text NOT NULL,
    topic text NOT NULL,
    owner text NOT NULL,
    receipts boolean NOT NULL,
    max_attempts integer NOT NULL,
    state text NOT NULL,
    attempt integer NOT NULL,
    next_attempt_at timestamptz,
    lease_owner text,
    lease_until timestamptz,
    last_code text,
    last_status integer,
    location text,
    dead_letter_reason text,
    application text NOT NULL,
    unknown_since timestamptz,
    accepted_at timestamptz,
    confirmed_at timestamptz,
    stream_version bigint NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS deliveries_due ON deliveries (next_attempt_at)
    WHERE state IN ('PLANNED', 'RETRYABLE', 'UNKNOWN_TRANSPORT');
CREATE INDEX IF NOT EXISTS deliveries_leases ON deliveries (lease_until) WHERE state = 'DISPATCHING';
CREATE INDEX IF NOT EXISTS deliveries_event ON deliveries (event_id);
CREATE INDEX IF NOT EXISTS deliveries_subscription ON deliveries (subscription_id, event_id);
CREATE INDEX IF NOT EXISTS deliveries_dead ON deliveries (tenant_id) WHERE state = 'DEAD_LETTER';
