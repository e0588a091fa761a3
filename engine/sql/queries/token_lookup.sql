SELECT tenant_id, secret_sha256 FROM api_tokens WHERE token_id = $1 AND revoked_at IS NULL
