-- Projection: the tenant's event catalogue, one row per (tenant, topic), kept inline with the
-- event-type streams. Ingest reads (tenant, topic, stream_version, majors) in its group
-- transaction; the definition (schemas and examples) only when its compiled validators are
-- not cached for that stream_version.
CREATE TABLE IF NOT EXISTS event_types (
    stream_id text PRIMARY KEY,
    tenant_id text NOT NULL,
    topic text NOT NULL,
    stream_version bigint NOT NULL,
    majors integer[] NOT NULL,
    deprecated boolean NOT NULL,
    digest text NOT NULL,
    definition text NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS event_types_tenant_topic ON event_types (tenant_id, topic);
