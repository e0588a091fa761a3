-- The log's recent rate, read cheaply (two probes of the primary key, no count): its head, and
-- the first event at most $1 positions before it (the first event of all in a shorter log),
-- with their recording times; plus the planner's row estimate of the table (-1: never
-- analysed) and the first position (for a log never analysed). No row: an empty log.
SELECT h.global_position AS head_position, h.recorded_at AS head_at,
       o.global_position AS from_position, o.recorded_at AS from_at,
       (SELECT min(global_position) FROM events) AS first_position,
       (SELECT c.reltuples::bigint FROM pg_class AS c WHERE c.oid = 'events'::regclass)
           AS rows_estimate,
       now() AS now
FROM (SELECT global_position, recorded_at FROM events
      ORDER BY global_position DESC LIMIT 1) AS h
CROSS JOIN LATERAL (
    SELECT e.global_position, e.recorded_at FROM events AS e
    WHERE e.global_position >= h.global_position - $1
    ORDER BY e.global_position LIMIT 1
) AS o
