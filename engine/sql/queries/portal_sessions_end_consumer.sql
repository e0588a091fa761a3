-- End every live session of one consumer (it was disabled).
UPDATE portal_sessions SET ended_at = $3, end_reason = $4
WHERE tenant_id = $1 AND consumer_id = $2 AND ended_at IS NULL
RETURNING session_id
