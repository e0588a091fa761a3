-- Business event identity is (tenant_id, event_id), not event_id (DESIGN section 11,
-- "Tenancy of event ids").
--
-- The log is append-only, so events written before this migration keep their stream names
-- (`event-<eventId>`, "legacy" streams) and their delivery ids. What changes:
--   * event_bodies gains the owning tenant and the name of the event's stream; its key becomes
--     (tenant_id, event_id). Idempotency and payload conflicts are decided on that key.
--   * A legacy body is attributed to the tenant that ingested it first: the actor of version 1
--     of its `event-<eventId>` stream (`tenant:<id>`), else the tenant of one of its
--     deliveries, else '' (no tenant can be named '': such a body is reachable by no API call
--     and is still sent for any delivery that names it). Its stream_id stays the legacy name,
--     so that tenant's re-posts and conflicts keep going to the stream its event lives in.
--   * New events get `event-<tenantId>/<eventId>` streams; another tenant re-using a legacy
--     event id gets its own new event and is no longer answered from the first tenant's.
-- This one-time attribution is the only write to event_bodies rows ever made; the immutability
-- trigger is switched off for this statement only, inside the migration's transaction.
ALTER TABLE event_bodies ADD COLUMN IF NOT EXISTS tenant_id text;
ALTER TABLE event_bodies ADD COLUMN IF NOT EXISTS stream_id text;

ALTER TABLE event_bodies DISABLE TRIGGER event_bodies_immutable;
UPDATE event_bodies AS b
SET stream_id = 'event-' || b.event_id,
    tenant_id = coalesce(
        (SELECT substring(convert_from(e.metadata, 'UTF8')::jsonb ->> 'actor' FROM '^tenant:(.+)$')
         FROM events AS e
         WHERE e.stream_id = 'event-' || b.event_id AND e.stream_version = 1),
        (SELECT d.tenant_id FROM deliveries AS d WHERE d.event_id = b.event_id
         ORDER BY d.created_at LIMIT 1),
        '')
WHERE b.tenant_id IS NULL OR b.stream_id IS NULL;
ALTER TABLE event_bodies ENABLE TRIGGER event_bodies_immutable;

ALTER TABLE event_bodies ALTER COLUMN tenant_id SET NOT NULL;
ALTER TABLE event_bodies ALTER COLUMN stream_id SET NOT NULL;
ALTER TABLE event_bodies DROP CONSTRAINT IF EXISTS event_bodies_pkey;
ALTER TABLE event_bodies ADD CONSTRAINT event_bodies_pkey PRIMARY KEY (tenant_id, event_id);
-- The operator's `audit event ID` without --tenant finds every tenant's event of that id.
CREATE INDEX IF NOT EXISTS event_bodies_event ON event_bodies (event_id);

-- Deliveries of one tenant's event (idempotent re-post, GET /v1/events/{eventId}).
DROP INDEX IF EXISTS deliveries_event;
CREATE INDEX IF NOT EXISTS deliveries_tenant_event ON deliveries (tenant_id, event_id);
