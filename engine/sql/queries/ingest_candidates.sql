-- The group's tenants' subscriptions that may receive an event of one of these topics (topic
-- patterns overlap); the caller matches tenant, consumer, topic, accepted major version and
-- filter.
SELECT subscription_id, tenant_id, generation, state, endpoint, endpoint_digest, topics,
       event_versions, config, consumer_id
FROM subscriptions
WHERE tenant_id = ANY($1::text[]) AND state IN ('ACTIVE', 'ROTATING') AND topics && $2::text[]
