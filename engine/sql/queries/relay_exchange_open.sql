-- An exchange through the subscription's attached session, if one is attached (its holder's
-- LISTEN backend alive), and the holder woken by `q:<session>:<exchange>`. No row: no relay
-- attached. $1 exchange, $2 subscription, $3 delivery (or challenge) id, $4 attempt, $5 kind,
-- $6 headers, $7 body.
WITH s AS (
    SELECT r.session_id
    FROM relay_sessions r
    WHERE r.subscription_id = $2
      AND EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = r.backend_pid)
), ins AS (
    INSERT INTO relay_exchanges
        (exchange_id, session_id, subscription_id, delivery_id, attempt, kind, headers, body)
    SELECT $1, s.session_id, $2, $3, $4, $5, $6, $7 FROM s
    ON CONFLICT (delivery_id, attempt) DO NOTHING
    RETURNING session_id
)
SELECT session_id, pg_notify('hookproof_relay', 'q:' || session_id || ':' || $1)
FROM ins
