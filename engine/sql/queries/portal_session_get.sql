SELECT session_id, tenant_id, consumer_id, secret_sha256, capabilities, expires_at, ended_at
FROM portal_sessions WHERE session_id = $1
