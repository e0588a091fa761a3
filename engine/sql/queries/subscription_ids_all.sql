-- Every subscription id (rotation proves each open subscription).
SELECT subscription_id FROM subscriptions
