-- The observer's read before the gates: attempts admitted inside a key rotation window (the
-- windows of gates_rotation_acceptance.sql: key.created of an engine key in NOT_BEFORE up to its
-- key.activated or key.revoked) that have no outcome yet. The gate leaves such attempts out
-- (undecided); the campaign waits for them so the gate judges every attempt of the window.
-- $1: since (the campaign's start).
WITH windows AS (
    SELECT c.recorded_at AS opened,
           (SELECT min(x.recorded_at) FROM events AS x
            WHERE x.stream_id = c.stream_id
              AND x.stream_version > c.stream_version
              AND x.type IN ('key.activated', 'key.revoked')) AS closed
    FROM events AS c
    WHERE c.category = 'key'
      AND c.type = 'key.created'
      AND convert_from(c.data, 'UTF8')::jsonb ->> 'purpose' = 'engine'
      AND convert_from(c.data, 'UTF8')::jsonb ->> 'state' = 'NOT_BEFORE'
), inside AS (
    SELECT a.stream_id, a.stream_version,
           (convert_from(a.data, 'UTF8')::jsonb ->> 'attempt')::int AS attempt
    FROM events AS a
    WHERE a.category = 'delivery'
      AND a.type = 'delivery.attempt_admitted'
      AND a.recorded_at >= $1::text::timestamptz
      AND EXISTS (SELECT 1 FROM windows AS w
                  WHERE a.recorded_at >= w.opened
                    AND (w.closed IS NULL OR a.recorded_at < w.closed))
)
SELECT count(*) AS admitted,
       count(*) FILTER (WHERE NOT EXISTS (
           SELECT 1 FROM events AS x
           WHERE x.stream_id = i.stream_id
             AND x.stream_version > i.stream_version
             AND x.type IN ('delivery.endpoint_accepted', 'delivery.attempt_failed',
                            'delivery.attempt_lost')
             AND (convert_from(x.data, 'UTF8')::jsonb ->> 'attempt')::int = i.attempt
       )) AS undecided
FROM inside AS i
