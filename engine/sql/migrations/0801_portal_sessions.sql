-- Portal sessions: a consumer's short-lived bearer tokens (hpp_<hex>_<secret>). Only the
-- sha-256 of the secret is kept; start and end are also events in `portal-<sessionId>`.
CREATE TABLE IF NOT EXISTS portal_sessions (
    session_id text PRIMARY KEY,
    tenant_id text NOT NULL,
    consumer_id text NOT NULL,
    secret_sha256 bytea NOT NULL,
    capabilities text[] NOT NULL,
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL,
    ended_at timestamptz,
    end_reason text
);
CREATE INDEX IF NOT EXISTS portal_sessions_live
    ON portal_sessions (tenant_id, consumer_id) WHERE ended_at IS NULL;
