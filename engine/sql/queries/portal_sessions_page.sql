-- One page of a consumer's live sessions (not ended, not expired at $3), oldest first, after
-- the (created_at, session_id) of $4/$5 (NULL: from the start). Never the secret's digest.
SELECT session_id, consumer_id, capabilities, creator, created_at, expires_at
FROM portal_sessions
WHERE tenant_id = $1 AND consumer_id = $2 AND ended_at IS NULL AND expires_at > $3
  AND ($4::timestamptz IS NULL OR (created_at, session_id) > ($4, $5::text))
ORDER BY created_at, session_id
LIMIT $6
