INSERT INTO event_bodies (event_id, payload_digest, body, topic) VALUES ($1, $2, $3, $4)
ON CONFLICT (event_id) DO NOTHING
RETURNING event_id
