-- The demo's deliveries in the order they were planned (the evidence ladder).
SELECT delivery_id, subscription_id FROM deliveries ORDER BY created_at, delivery_id
