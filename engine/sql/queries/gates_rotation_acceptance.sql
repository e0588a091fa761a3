-- Gate: endpoint acceptance during rotation windows as a ratio of the baseline outside them.
-- A rotation window runs from the key.created of an engine key in state NOT_BEFORE to its
-- key.activated or key.revoked (abandoned), or is still open. Acceptance rate = attempts with
-- a delivery.endpoint_accepted / attempts admitted with any outcome (attempts still in flight
-- are undecided and left out). An attempt belongs to the window its admission was recorded in.
-- $1: since (NULL = whole log), applied to the admission's recorded_at.
WITH windows AS (
    SELECT c.stream_id, c.recorded_at AS opened,
           (SELECT min(x.recorded_at) FROM events AS x
            WHERE x.stream_id = c.stream_id
              AND x.stream_version > c.stream_version
              AND x.type IN ('key.activated', 'key.revoked')) AS closed
    FROM events AS c
    WHERE c.category = 'key'
      AND c.type = 'key.created'
      AND convert_from(c.data, 'UTF8')::jsonb ->> 'purpose' = 'engine'
      AND convert_from(c.data, 'UTF8')::jsonb ->> 'state' = 'NOT_BEFORE'
), admitted AS (
    SELECT a.stream_id, a.stream_version, a.recorded_at,
           (convert_from(a.data, 'UTF8')::jsonb ->> 'attempt')::int AS attempt
    FROM events AS a
    WHERE a.category = 'delivery'
      AND a.type = 'delivery.attempt_admitted'
      AND ($1::timestamptz IS NULL OR a.recorded_at >= $1)
), judged AS (
    SELECT ad.*,
           EXISTS (SELECT 1 FROM windows AS w
                   WHERE ad.recorded_at >= w.opened
                     AND (w.closed IS NULL OR ad.recorded_at < w.closed)) AS in_window,
           o.accepted, o.decided
    FROM admitted AS ad
    -- include: admitted_attempt_outcome
)
SELECT (SELECT count(*) FROM windows) AS windows,
       count(*) FILTER (WHERE in_window AND decided) AS in_admitted,
       count(*) FILTER (WHERE in_window AND accepted) AS in_accepted,
       count(*) FILTER (WHERE NOT in_window AND decided) AS out_admitted,
       count(*) FILTER (WHERE NOT in_window AND accepted) AS out_accepted,
       count(*) FILTER (WHERE NOT decided) AS undecided
FROM judged
