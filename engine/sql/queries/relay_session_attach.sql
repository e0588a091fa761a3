-- A relay session attaches to its subscription, replacing any earlier one (whose holder is
-- told by `x:<old session>` and closes it). $1 subscription, $2 session, $3 tenant,
-- $4 the holder's LISTEN backend pid. Returns the replaced session, if any. Exchanges an hour
-- old are gone too (only a waiter's crash leaves one: its attempt is long reconciled).
WITH stale AS (
    DELETE FROM relay_exchanges WHERE created_at < now() - interval '1 hour'
), old AS (
    SELECT session_id FROM relay_sessions WHERE subscription_id = $1 FOR UPDATE
), up AS (
    INSERT INTO relay_sessions (subscription_id, session_id, tenant_id, backend_pid)
    VALUES ($1, $2, $3, $4)
    ON CONFLICT (subscription_id) DO UPDATE
        SET session_id = EXCLUDED.session_id,
            tenant_id = EXCLUDED.tenant_id,
            backend_pid = EXCLUDED.backend_pid,
            attached_at = now()
    RETURNING session_id
)
SELECT old.session_id AS replaced, pg_notify('hookproof_relay', 'x:' || old.session_id)
FROM old, up
WHERE old.session_id <> up.session_id
