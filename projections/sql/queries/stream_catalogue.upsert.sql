INSERT INTO {table} (stream_id, category, version, event_count, first_event_at, last_event_at,
                     last_position)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (stream_id) DO UPDATE SET
    category = EXCLUDED.category, version = EXCLUDED.version,
    event_count = EXCLUDED.event_count, first_event_at = EXCLUDED.first_event_at,
    last_event_at = EXCLUDED.last_event_at, last_position = EXCLUDED.last_position
