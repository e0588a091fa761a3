-- End every live session (not ended, not expired at $3) of one consumer: the tenant's end-all.
UPDATE portal_sessions SET ended_at = $3, end_reason = $4
WHERE tenant_id = $1 AND consumer_id = $2 AND ended_at IS NULL AND expires_at > $3
RETURNING session_id, consumer_id
