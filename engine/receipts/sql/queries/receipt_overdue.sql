-- Receipt-contract deliveries that a 2xx accepted long ago and no receipt confirmed yet.
SELECT delivery_id, event_id, subscription_id, stream_version, attempt, accepted_at
FROM deliveries
WHERE state = 'ENDPOINT_ACCEPTED'
  AND receipts
  AND application = 'PENDING'
  AND accepted_at <= now() - make_interval(secs => $1)
ORDER BY accepted_at
LIMIT $2
