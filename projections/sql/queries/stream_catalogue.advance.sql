-- One page of the stream catalogue's projector, done by the server alone (bench/HISTORY.md
-- "Session 8: soak"): the next $3 row headers after the checkpoint ($1, $2) in commit-safe
-- order (as tail_headers.sql), folded per stream (the fold of StreamCatalogue.evolve: version
-- and last event time and position the greatest, events counted, category and first event
-- time from the stream's first event in commit order) and merged into the rows already there
-- as stream_catalogue.merge.sql does (an UPDATE of the rows there, a plain INSERT of the
-- others: the page is written under the checkpoint's row lock, one writer at a time). Nothing
-- of the page crosses to the engine: folding 20,000 headers in Python held the first worker's
-- event loop, which also answers the API, for hundreds of milliseconds once a minute.
-- Returns the page's event count and its last position (the new checkpoint).
WITH page AS MATERIALIZED (
    SELECT e.tx_id, e.global_position, e.stream_id, e.stream_version, e.recorded_at
    FROM events AS e
    WHERE (e.tx_id, e.global_position) > ($1::text::xid8, $2::bigint)
      AND e.tx_id < pg_snapshot_xmin(pg_current_snapshot())
    ORDER BY e.tx_id, e.global_position
    LIMIT $3
), folded AS MATERIALIZED (
    SELECT p.stream_id,
           -- hookproof.events.category_of
           CASE WHEN starts_with(p.stream_id, 'event-type-') THEN 'event_type'
                ELSE split_part(p.stream_id, '-', 1) END AS category,
           max(p.stream_version) AS version,
           count(*) AS event_count,
           (array_agg(p.recorded_at ORDER BY p.tx_id, p.global_position))[1] AS first_event_at,
           max(p.recorded_at) AS last_event_at,
           max(p.global_position) AS last_position
    FROM page AS p
    GROUP BY p.stream_id
), merged AS (
    UPDATE {table} AS t SET
        version = GREATEST(t.version, f.version),
        event_count = t.event_count + f.event_count,
        last_event_at = GREATEST(t.last_event_at, f.last_event_at),
        last_position = GREATEST(t.last_position, f.last_position)
    FROM folded AS f
    WHERE t.stream_id = f.stream_id
    RETURNING t.stream_id
), inserted AS (
    INSERT INTO {table} (stream_id, category, version, event_count, first_event_at,
                         last_event_at, last_position)
    SELECT f.stream_id, f.category, f.version, f.event_count, f.first_event_at,
           f.last_event_at, f.last_position
    FROM folded AS f
    WHERE NOT EXISTS (SELECT 1 FROM merged AS m WHERE m.stream_id = f.stream_id)
    ORDER BY f.stream_id
    RETURNING 1
), last AS (
    SELECT p.tx_id, p.global_position FROM page AS p
    ORDER BY p.tx_id DESC, p.global_position DESC
    LIMIT 1
)
SELECT (SELECT count(*) FROM page) AS events,
       (SELECT l.tx_id::text FROM last AS l) AS tx_id,
       (SELECT l.global_position FROM last AS l) AS global_position,
       (SELECT count(*) FROM merged) AS updated,
       (SELECT count(*) FROM inserted) AS inserted
