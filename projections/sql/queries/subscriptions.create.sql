CREATE TABLE {table} (
    subscription_id text PRIMARY KEY,
    tenant_id text NOT NULL,
    generation integer NOT NULL,
    state text NOT NULL,
    endpoint text NOT NULL,
    endpoint_digest text NOT NULL,
    topics text[] NOT NULL,
    event_versions integer[] NOT NULL,
    config text NOT NULL,
    stream_version bigint NOT NULL,
    pinned_addresses text[] NOT NULL,
    spki_sha256 text,
    proven_key_id text,
    expires_at timestamptz,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
)
