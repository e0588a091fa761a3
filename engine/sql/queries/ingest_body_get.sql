SELECT event_id, payload_digest, body, topic FROM event_bodies WHERE event_id = $1
