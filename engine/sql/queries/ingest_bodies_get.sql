-- Events of this group that already existed: each tenant's own, by (tenant_id, event_id).
-- One primary-key probe per event (a plain join of 500 keys was planned as a hash join over a
-- sequential scan of ~32k bodies; LIMIT keeps the lateral probe from being flattened into it).
SELECT b.tenant_id, b.event_id, b.stream_id, b.payload_digest
FROM unnest($1::text[], $2::text[]) AS k (tenant_id, event_id)
CROSS JOIN LATERAL (
    SELECT x.tenant_id, x.event_id, x.stream_id, x.payload_digest
    FROM event_bodies AS x
    WHERE x.tenant_id = k.tenant_id AND x.event_id = k.event_id
    LIMIT 1
) AS b
