-- The consumer of a tenant's delivery (through its subscription); no row: not this tenant's.
SELECT d.delivery_id, s.consumer_id
FROM deliveries AS d JOIN subscriptions AS s ON s.subscription_id = d.subscription_id
WHERE d.delivery_id = $1 AND d.tenant_id = $2
