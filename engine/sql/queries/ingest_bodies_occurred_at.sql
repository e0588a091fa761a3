-- The occurredAt stored events carry: read only for a group's reposts that omitted it and
-- differ from their stored digest (engine/ingest/repost.py). One primary-key probe per event,
-- in the lateral form of ingest_bodies_get (a plain join may plan a sequential scan).
SELECT b.tenant_id, b.event_id, b.occurred_at
FROM unnest($1::text[], $2::text[]) AS k (tenant_id, event_id)
CROSS JOIN LATERAL (
    SELECT x.tenant_id, x.event_id, convert_from(x.body, 'UTF8')::jsonb ->> 'occurredAt' AS occurred_at
    FROM event_bodies AS x
    WHERE x.tenant_id = k.tenant_id AND x.event_id = k.event_id
    LIMIT 1
) AS b
