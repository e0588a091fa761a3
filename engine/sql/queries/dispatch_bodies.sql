-- The canonical bodies of the claimed deliveries, by (tenant_id, event_id): two tenants may
-- use the same eventId for different payloads.
SELECT b.tenant_id, b.event_id, b.body
FROM event_bodies AS b
JOIN unnest($1::text[], $2::text[]) AS k (tenant_id, event_id) USING (tenant_id, event_id)
