INSERT INTO event_bodies (tenant_id, event_id, stream_id, payload_digest, body, topic)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (tenant_id, event_id) DO NOTHING
RETURNING event_id
