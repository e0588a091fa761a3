-- A session start holds its token's row until commit: a revocation that races it waits (and
-- then ends the new session), or went first (and the start sees no active token).
SELECT tenant_id FROM api_tokens WHERE token_id = $1 AND revoked_at IS NULL FOR SHARE
