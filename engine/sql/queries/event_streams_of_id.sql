-- Every tenant's event of this eventId (operator audit), or one tenant's when $2 is set.
SELECT tenant_id, stream_id FROM event_bodies
WHERE event_id = $1 AND ($2::text IS NULL OR tenant_id = $2)
ORDER BY tenant_id
