-- The select list of a page of the attempt statistics' fold (attempt_stats_fold.sql), over
-- `events AS e`: every event keeps its position and recording time; only the four types the
-- counts read keep their stream and type, a failed attempt its `outcome`, and an accepted or
-- failed one its `duration_ms` (the latency histogram), so a page of 20,000 events stays small
-- enough to be kept in memory while it is read.
    e.global_position, e.tx_id, e.stream_version, e.recorded_at,
    CASE WHEN e.type IN ('delivery.endpoint_accepted', 'delivery.attempt_failed',
                         'delivery.attempt_lost', 'delivery.dead_lettered')
         THEN e.stream_id END AS stream_id,
    CASE WHEN e.type IN ('delivery.endpoint_accepted', 'delivery.attempt_failed',
                         'delivery.attempt_lost', 'delivery.dead_lettered')
         THEN e.type END AS type,
    CASE WHEN e.type = 'delivery.attempt_failed'
         THEN convert_from(e.data, 'UTF8')::jsonb ->> 'outcome' END AS outcome,
    CASE WHEN e.type IN ('delivery.endpoint_accepted', 'delivery.attempt_failed')
         THEN (convert_from(e.data, 'UTF8')::jsonb ->> 'duration_ms')::float8 END AS duration_ms
