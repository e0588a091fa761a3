-- One index probe per stream (a join with the unnested ids: with ANY of 1,000 ids the planner
-- chose a sequential scan once the table held ~47k rows).
SELECT c.stream_id, c.category, c.version, c.event_count, c.first_event_at, c.last_event_at,
       c.last_position
FROM unnest($1::text[]) AS k(stream_id)
JOIN {table} AS c USING (stream_id)
