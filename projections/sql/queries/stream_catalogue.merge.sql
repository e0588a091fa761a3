-- The incremental path of the stream catalogue in one statement, with nothing loaded first:
-- one row per stream of the page, folded from its events of the page alone (sorted by stream
-- id), merged into the row already there exactly as evolve would continue it (version, last
-- event time and position the greater, the counts added, category and first event kept).
-- An UPDATE of the rows already there and a plain INSERT of the others, not INSERT ... ON
-- CONFLICT: the page is written under its projection's checkpoint lock (one writer at a
-- time), and ON CONFLICT cost a speculative insertion (a confirm record) per new row and a
-- row lock record per existing one in the WAL (bench/HISTORY.md "Session 6").
WITH page AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[],
                         $5::timestamptz[], $6::timestamptz[], $7::bigint[])
        AS p(stream_id, category, version, event_count, first_event_at, last_event_at,
             last_position)
), merged AS (
    UPDATE {table} AS t SET
        version = GREATEST(t.version, p.version),
        event_count = t.event_count + p.event_count,
        last_event_at = GREATEST(t.last_event_at, p.last_event_at),
        last_position = GREATEST(t.last_position, p.last_position)
    FROM page AS p
    WHERE t.stream_id = p.stream_id
    RETURNING t.stream_id
)
INSERT INTO {table} (stream_id, category, version, event_count, first_event_at, last_event_at,
                     last_position)
SELECT p.* FROM page AS p
WHERE NOT EXISTS (SELECT 1 FROM merged AS m WHERE m.stream_id = p.stream_id)
