-- The tenant of a subscription (operator notifications about it go to that tenant only).
SELECT tenant_id FROM subscriptions WHERE subscription_id = $1
