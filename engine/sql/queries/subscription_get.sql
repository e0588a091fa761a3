SELECT * FROM subscriptions WHERE subscription_id = $1 AND tenant_id = $2
