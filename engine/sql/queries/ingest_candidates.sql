-- The group's tenants' subscriptions that may receive an event of one of these topics (topic
-- patterns overlap); the caller matches tenant, consumer, topic, accepted major version and
-- filters. A subscription whose filters require one equality (filters_key, the index key of
-- engine/filters/index.py) comes only when one of the group's events satisfies it ($3, the
-- keys the events satisfy; NULL: an event had too many to list, so every one comes): with
-- 10,000 subscriptions of one topic, each with its own equality, a group reads its few.
SELECT subscription_id, tenant_id, generation, state, endpoint, endpoint_digest, topics,
       event_versions, config, consumer_id
FROM subscriptions
WHERE tenant_id = ANY($1::text[]) AND state IN ('ACTIVE', 'ROTATING') AND topics && $2::text[]
  AND filters_key IS NULL
UNION ALL
SELECT subscription_id, tenant_id, generation, state, endpoint, endpoint_digest, topics,
       event_versions, config, consumer_id
FROM subscriptions
WHERE tenant_id = ANY($1::text[]) AND state IN ('ACTIVE', 'ROTATING') AND topics && $2::text[]
  AND filters_key = ANY($3::text[])
UNION ALL
SELECT subscription_id, tenant_id, generation, state, endpoint, endpoint_digest, topics,
       event_versions, config, consumer_id
FROM subscriptions
WHERE $3::text[] IS NULL AND tenant_id = ANY($1::text[]) AND state IN ('ACTIVE', 'ROTATING')
  AND topics && $2::text[] AND filters_key IS NOT NULL
