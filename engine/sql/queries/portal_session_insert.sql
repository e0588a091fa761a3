INSERT INTO portal_sessions (session_id, tenant_id, consumer_id, secret_sha256, capabilities,
                             expires_at, created_at, creator)
VALUES ($1, $2, $3, $4, $5::text[], $6, $7, $8)
