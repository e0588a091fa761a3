-- POST /v1/deliveries/search: a tenant's deliveries newest first, keyset on
-- (created_at, delivery_id), with the event's body for the filters the engine evaluates
-- itself (engine/search/). $3 topic, $6/$7 since/until, $8 event id, $12/$13 the cursor,
-- $14 the most rows read (the scan budget), $15 the filters' equalities as one jsonpath
-- predicate (event_bodies_search, migration 1060); the others: search_delivery_conditions.
-- Planned for its values (search_plan.sql), so a NULL filter costs nothing.
SELECT d.*, b.body,
       (SELECT s.consumer_id FROM subscriptions AS s
        WHERE s.subscription_id = k.subscription_id) AS consumer_id
FROM delivery_log AS k
JOIN deliveries AS d ON d.delivery_id = k.delivery_id
JOIN event_bodies AS b ON b.tenant_id = k.tenant_id AND b.event_id = k.event_id
WHERE k.tenant_id = $1
  AND ($3::text IS NULL OR k.topic = $3)
  AND k.created_at >= COALESCE($6::timestamptz, '-infinity')
  AND k.created_at < COALESCE($7::timestamptz, 'infinity')
  AND ($8::text IS NULL OR k.event_id = $8)
  AND ($15::jsonpath IS NULL OR hookproof_body_search(b.body) @@ $15)
  AND (k.created_at, k.delivery_id)
      < (COALESCE($12::timestamptz, 'infinity'), COALESCE($13::text, ''))
-- include: search_delivery_conditions
ORDER BY k.created_at DESC, k.delivery_id DESC
LIMIT $14
