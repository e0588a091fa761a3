-- Which of the given subscription ids exist (any tenant: rollouts are an operator's tool).
SELECT subscription_id FROM subscriptions WHERE subscription_id = ANY($1::text[])
