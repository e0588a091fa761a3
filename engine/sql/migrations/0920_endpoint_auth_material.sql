-- Endpoint authentication at rest (issue 35, DESIGN.md section 14): a subscription's `auth`
-- (client certificate and key, OAuth2 client credentials, or a static header) as AES-GCM under
-- the master key, associated data = material id. The subscription's events carry the material
-- id and a keyed digest only (EndpointAuthRef). A change of `auth` writes a new row and a
-- `subscription.auth_changed` event in one transaction; rows are never updated.
CREATE TABLE IF NOT EXISTS endpoint_auth_material (
    material_id text PRIMARY KEY,
    subscription_id text NOT NULL,
    auth_type text NOT NULL CHECK (auth_type IN ('mtls', 'oauth2', 'header')),
    nonce bytea NOT NULL,
    ciphertext bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
