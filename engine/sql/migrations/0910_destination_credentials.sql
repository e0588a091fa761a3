-- Broker destination credentials (issue 34, DESIGN.md section 13): write-only, AES-GCM under
-- the master key (associated data = credentials id), as key material is. A subscription's
-- `destination` references its row by `credentials_id` and binds its keyed digest; events,
-- logs and answers never hold the plaintext. Rows are never updated: a new credential is a
-- new row (and a new generation).
CREATE TABLE IF NOT EXISTS destination_credentials (
    credentials_id text PRIMARY KEY,
    subscription_id text NOT NULL,
    nonce bytea NOT NULL,
    ciphertext bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
