-- One page of a tenant's event types, keyset on topic ($2: after this topic, NULL: first page).
SELECT stream_id, tenant_id, topic, stream_version, majors, deprecated, digest, definition,
       created_at, updated_at
FROM event_types
WHERE tenant_id = $1 AND ($2::text IS NULL OR topic > $2::text)
ORDER BY topic
LIMIT $3
