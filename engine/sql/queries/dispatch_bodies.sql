SELECT event_id, body FROM event_bodies WHERE event_id = ANY($1::text[])
