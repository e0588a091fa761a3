SELECT * FROM subscriptions WHERE tenant_id = $1 ORDER BY created_at, subscription_id
LIMIT $2
