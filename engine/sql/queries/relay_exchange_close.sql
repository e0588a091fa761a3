-- The waiter is done with exchange $1: the row goes, with what it holds (a report arriving
-- later finds nothing to land on).
DELETE FROM relay_exchanges WHERE exchange_id = $1
RETURNING session_id, sent_at IS NOT NULL AS sent, reported_at IS NOT NULL AS reported,
          status, error, response, response_type, answered_by
