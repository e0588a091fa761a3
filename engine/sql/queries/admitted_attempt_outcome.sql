-- Fragment, never run alone (a statement pulls it in with "-- include: admitted_attempt_outcome"):
-- the outcome of the admitted attempt `ad` (its stream_id, stream_version and attempt), as
-- `o.accepted` (a delivery.endpoint_accepted followed) and `o.decided` (any outcome followed).
-- Unqualified `events`: it reads whichever events table the including statement sees.
CROSS JOIN LATERAL (
    SELECT bool_or(x.type = 'delivery.endpoint_accepted') AS accepted,
           count(*) > 0 AS decided
    FROM events AS x
    WHERE x.stream_id = ad.stream_id
      AND x.stream_version > ad.stream_version
      AND x.type IN ('delivery.endpoint_accepted', 'delivery.attempt_failed',
                     'delivery.attempt_lost')
      AND (convert_from(x.data, 'UTF8')::jsonb ->> 'attempt')::int = ad.attempt
) AS o
