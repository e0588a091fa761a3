SELECT stream_id, category, version, event_count, first_event_at, last_event_at, last_position
FROM {table} WHERE stream_id = ANY($1::text[])
