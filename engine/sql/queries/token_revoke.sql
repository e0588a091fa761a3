UPDATE api_tokens SET revoked_at = now() WHERE token_id = $1 AND revoked_at IS NULL
RETURNING tenant_id
