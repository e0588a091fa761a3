-- API tokens: only a sha-256 of the secret part is stored; the token is shown once.
CREATE TABLE IF NOT EXISTS api_tokens (
    token_id text PRIMARY KEY,
    tenant_id text NOT NULL,
    secret_sha256 bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
);
CREATE TABLE IF NOT EXISTS tenants (
    tenant_id text PRIMARY KEY,
    name text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
