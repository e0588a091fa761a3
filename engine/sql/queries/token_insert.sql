INSERT INTO api_tokens (token_id, tenant_id, secret_sha256) VALUES ($1, $2, $3)
