-- One tenant's definition of one topic from the catalogue projection.
SELECT stream_id, tenant_id, topic, stream_version, majors, deprecated, digest, definition,
       created_at, updated_at
FROM event_types
WHERE tenant_id = $1 AND topic = $2
