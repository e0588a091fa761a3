-- What a dead-letter notification needs of its delivery: tenant, topic (loop guard), ids.
SELECT tenant_id, topic, event_id, subscription_id FROM deliveries WHERE delivery_id = $1
