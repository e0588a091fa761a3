SELECT tenant_id, event_id, stream_id, payload_digest, body, topic
FROM event_bodies WHERE tenant_id = $1 AND event_id = $2
