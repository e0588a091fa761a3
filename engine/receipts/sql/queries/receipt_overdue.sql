-- Receipt-contract deliveries that a 2xx accepted long ago and no receipt confirmed yet.
-- A test event (its id in the reserved 'hookproof-test-' space) is never sent again: a test
-- checks the path once, and its 2xx is the answer to that test.
SELECT delivery_id, event_id, subscription_id, stream_version, attempt, accepted_at
FROM deliveries
WHERE state = 'ENDPOINT_ACCEPTED'
  AND receipts
  AND application = 'PENDING'
  AND event_id NOT LIKE 'hookproof-test-%'
  AND accepted_at <= now() - make_interval(secs => $1)
ORDER BY accepted_at
LIMIT $2
