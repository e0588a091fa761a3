-- The incremental path of the stream catalogue in one statement, with nothing loaded first:
-- one row per stream of the page, folded from its events of the page alone (sorted by stream
-- id), merged into the row already there exactly as evolve would continue it (version, last
-- event time and position the greater, the counts added, category and first event kept).
INSERT INTO {table} AS t (stream_id, category, version, event_count, first_event_at,
                          last_event_at, last_position)
SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::timestamptz[],
                     $6::timestamptz[], $7::bigint[])
ON CONFLICT (stream_id) DO UPDATE SET
    version = GREATEST(t.version, EXCLUDED.version),
    event_count = t.event_count + EXCLUDED.event_count,
    last_event_at = GREATEST(t.last_event_at, EXCLUDED.last_event_at),
    last_position = GREATEST(t.last_position, EXCLUDED.last_position)
