-- End one live session of this tenant; the row when it was live (none: unknown or ended).
UPDATE portal_sessions SET ended_at = $3, end_reason = $4
WHERE session_id = $1 AND tenant_id = $2 AND ended_at IS NULL
RETURNING session_id, consumer_id
