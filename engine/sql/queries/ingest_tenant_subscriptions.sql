-- Why an event was planned for no subscription: the tenant's subscriptions in every state
-- (the first 1,000 by age), for the pure judgement of engine/delivery/eligibility.py.
SELECT subscription_id, state, topics, event_versions, config, consumer_id
FROM subscriptions
WHERE tenant_id = $1
ORDER BY created_at, subscription_id
LIMIT 1000
