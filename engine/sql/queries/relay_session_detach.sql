-- A relay session ends ($1): it is no longer attached, and every exchange still waiting on it
-- ends with error 'relay_detached' (its waiter is woken by `r:<exchange>`).
WITH gone AS (
    DELETE FROM relay_sessions WHERE session_id = $1
), cut AS (
    UPDATE relay_exchanges
    SET error = 'relay_detached', reported_at = now()
    WHERE session_id = $1 AND reported_at IS NULL
    RETURNING exchange_id
)
SELECT pg_notify('hookproof_relay', 'r:' || exchange_id) FROM cut
