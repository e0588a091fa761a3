-- One group's bodies (sorted by key, so concurrent groups take their row locks in one order).
-- The rows returned are the events this group created; the others already existed.
INSERT INTO event_bodies (tenant_id, event_id, stream_id, payload_digest, body, topic)
SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bytea[], $6::text[])
ON CONFLICT (tenant_id, event_id) DO NOTHING
RETURNING tenant_id, event_id
