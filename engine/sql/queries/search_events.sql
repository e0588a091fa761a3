-- POST /v1/events/search: a tenant's events newest first (when accepted), keyset on
-- (created_at, event_id) (event_bodies_tenant_time, migration 1060). The parameters are
-- search_deliveries.sql's; $16 true: only events with a delivery that meets the delivery
-- conditions (subscription, state, evidence, status, reason, consumer).
SELECT b.event_id, b.topic, b.payload_digest, b.created_at, b.body
FROM event_bodies AS b
WHERE b.tenant_id = $1
  AND ($3::text IS NULL OR b.topic = $3)
  AND b.created_at >= COALESCE($6::timestamptz, '-infinity')
  AND b.created_at < COALESCE($7::timestamptz, 'infinity')
  AND ($8::text IS NULL OR b.event_id = $8)
  AND ($15::jsonpath IS NULL OR hookproof_body_search(b.body) @@ $15)
  AND (b.created_at, b.event_id)
      < (COALESCE($12::timestamptz, 'infinity'), COALESCE($13::text, ''))
  AND (NOT $16::boolean OR EXISTS (
      SELECT 1 FROM delivery_log AS k
      JOIN deliveries AS d ON d.delivery_id = k.delivery_id
      WHERE k.tenant_id = b.tenant_id AND k.event_id = b.event_id
-- include: search_delivery_conditions
  ))
ORDER BY b.created_at DESC, b.event_id DESC
LIMIT $14
