CREATE TABLE {table} (
    stream_id text PRIMARY KEY,
    category text NOT NULL,
    version bigint NOT NULL,
    event_count bigint NOT NULL,
    first_event_at timestamptz NOT NULL,
    last_event_at timestamptz NOT NULL,
    last_position bigint NOT NULL
)
