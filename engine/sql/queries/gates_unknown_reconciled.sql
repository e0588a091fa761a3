-- Gate: UNKNOWN_TRANSPORT reconciled within 15 minutes (at least 99%).
-- An unknown outcome is a delivery.attempt_failed with outcome UNKNOWN_TRANSPORT or a
-- delivery.attempt_lost. It is reconciled by the next delivery.attempt_admitted with
-- reconciles = true or a delivery.application_confirmed in the same stream. Durations are
-- between the facts' own times (their "at"). One still open and younger than the limit is
-- pending and left out; one open and older counts as not reconciled.
-- $1: since (NULL = whole log), applied to the unknown outcome's recorded_at.
-- $2: the limit in seconds.
WITH unknown AS (
    SELECT u.stream_id, u.stream_version, u.recorded_at,
           coalesce((d ->> 'at')::timestamptz, u.recorded_at) AS at
    FROM events AS u
    CROSS JOIN LATERAL (SELECT convert_from(u.data, 'UTF8')::jsonb AS d) AS j
    WHERE u.category = 'delivery'
      AND ((u.type = 'delivery.attempt_failed' AND d ->> 'outcome' = 'UNKNOWN_TRANSPORT')
           OR u.type = 'delivery.attempt_lost')
      AND ($1::timestamptz IS NULL OR u.recorded_at >= $1)
), traced AS (
    SELECT u.*, r.at AS reconciled_at
    FROM unknown AS u
    LEFT JOIN LATERAL (
        SELECT coalesce((rd ->> 'at')::timestamptz, x.recorded_at) AS at
        FROM events AS x
        CROSS JOIN LATERAL (SELECT convert_from(x.data, 'UTF8')::jsonb AS rd) AS j
        WHERE x.stream_id = u.stream_id
          AND x.stream_version > u.stream_version
          AND ((x.type = 'delivery.attempt_admitted'
                AND coalesce((rd ->> 'reconciles')::boolean, false))
               OR x.type = 'delivery.application_confirmed')
        ORDER BY x.stream_version
        LIMIT 1
    ) AS r ON true
), judged AS (
    SELECT t.*,
           t.reconciled_at IS NOT NULL
               AND t.reconciled_at - t.at <= make_interval(secs => $2) AS in_time,
           t.reconciled_at IS NULL
               AND clock_timestamp() - t.at <= make_interval(secs => $2) AS pending
    FROM traced AS t
)
SELECT count(*) FILTER (WHERE NOT pending) AS total,
       count(*) FILTER (WHERE in_time) AS reconciled,
       count(*) FILTER (WHERE pending) AS pending,
       coalesce(
           (array_agg(stream_id || '@' || stream_version || ': '
                      || coalesce('reconciled after ' || (reconciled_at - at)::text,
                                  'never reconciled')
                      ORDER BY recorded_at) FILTER (WHERE NOT in_time AND NOT pending))[1:20],
           '{}'
       ) AS examples
FROM judged
