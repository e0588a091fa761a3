-- The deliveries of one tenant's event, through the delivery log's keys (delivery_log_event,
-- migration 1000).
SELECT d.* FROM delivery_log AS k
JOIN deliveries AS d ON d.delivery_id = k.delivery_id
WHERE k.tenant_id = $1 AND k.event_id = $2
ORDER BY d.delivery_id
