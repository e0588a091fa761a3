SELECT delivery_id, subscription_id FROM deliveries WHERE event_id = $1 ORDER BY delivery_id
