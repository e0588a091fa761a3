-- The holder of session $2 takes exchange $1 to send it (once: sent_at is set here).
UPDATE relay_exchanges
SET sent_at = now()
WHERE exchange_id = $1 AND session_id = $2 AND sent_at IS NULL AND reported_at IS NULL
RETURNING delivery_id, attempt, kind, headers, body
