-- One tenant's subscriptions that may receive an event of this topic (topic patterns overlap);
-- the caller filters on accepted major versions and the payload filter.
SELECT subscription_id, tenant_id, generation, state, endpoint, endpoint_digest, topics,
       event_versions, config
FROM subscriptions
WHERE tenant_id = $1 AND state IN ('ACTIVE', 'ROTATING') AND topics && $2::text[]
