-- The revocation of token $2 of tenant $1 ends the live sessions it started, and those whose
-- creator was never recorded (started before migration 0891).
UPDATE portal_sessions SET ended_at = $3, end_reason = $4
WHERE tenant_id = $1 AND ended_at IS NULL AND expires_at > $3
  AND (creator = 'token:' || $2::text OR creator IS NULL)
RETURNING session_id, consumer_id
