-- The relay's report lands on the one exchange it answers: the same session, delivery id and
-- attempt, sent and not yet reported or taken away; its waiter is woken by `r:<exchange>`.
-- $1 exchange, $2 session, $3 delivery id, $4 attempt, $5 status, $6 error, $7 response body,
-- $8 response content type, $9 who answered a challenge ('cli': hookproof listen
-- --answer-challenge; NULL: the local receiver).
WITH hit AS (
    UPDATE relay_exchanges
    SET status = $5, error = $6, response = $7, response_type = $8, answered_by = $9,
        reported_at = now()
    WHERE exchange_id = $1 AND session_id = $2 AND delivery_id = $3 AND attempt = $4
      AND sent_at IS NOT NULL AND reported_at IS NULL
    RETURNING exchange_id
)
SELECT exchange_id, pg_notify('hookproof_relay', 'r:' || exchange_id) FROM hit
