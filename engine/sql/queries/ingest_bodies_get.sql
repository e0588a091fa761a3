-- Events of this group that already existed: each tenant's own, by (tenant_id, event_id).
SELECT b.tenant_id, b.event_id, b.stream_id, b.payload_digest
FROM event_bodies AS b
JOIN unnest($1::text[], $2::text[]) AS k (tenant_id, event_id) USING (tenant_id, event_id)
