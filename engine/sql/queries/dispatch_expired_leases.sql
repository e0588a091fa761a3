SELECT delivery_id, attempt, lease_owner, stream_version
FROM deliveries
WHERE state = 'DISPATCHING' AND lease_until < now()
ORDER BY lease_until
LIMIT $1
FOR UPDATE SKIP LOCKED
