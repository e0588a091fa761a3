SELECT session_id, ended_at FROM portal_sessions WHERE session_id = $1 AND tenant_id = $2
