-- Gate (second half): receipts accepted under a revoked receipt key generation (must be 0).
-- A receipt key is bound by the subscription's configuration; a later configuration with a
-- higher receipt key generation retires the older one. A violation: a
-- delivery.application_confirmed whose receipt_key_generation is below the generation bound
-- by the subscription's latest registered/updated event recorded before the confirmation.
-- $1: since (NULL = whole log), applied to the confirmation's recorded_at.
WITH confirmed AS (
    SELECT e.stream_id, e.stream_version, e.recorded_at,
           convert_from(e.data, 'UTF8')::jsonb AS d
    FROM events AS e
    WHERE e.category = 'delivery'
      AND e.type = 'delivery.application_confirmed'
      AND ($1::timestamptz IS NULL OR e.recorded_at >= $1)
), traced AS (
    SELECT c.stream_id, c.stream_version, c.recorded_at,
           (c.d ->> 'receipt_key_generation')::int AS used_generation,
           cfg.generation AS bound_generation
    FROM confirmed AS c
    LEFT JOIN LATERAL (
        SELECT coalesce((s.d -> 'config' -> 'receipt_key' ->> 'generation')::int, 1) AS generation
        FROM (
            SELECT convert_from(x.data, 'UTF8')::jsonb AS d, x.stream_version
            FROM events AS x
            WHERE x.stream_id = 'subscription-' || (c.d ->> 'subscription_id')
              AND x.type IN ('subscription.registered', 'subscription.updated')
              AND x.recorded_at <= c.recorded_at
        ) AS s
        WHERE s.d -> 'config' -> 'receipt_key' IS NOT NULL
          AND jsonb_typeof(s.d -> 'config' -> 'receipt_key') = 'object'
        ORDER BY s.stream_version DESC
        LIMIT 1
    ) AS cfg ON true
)
SELECT count(*) AS total,
       count(*) FILTER (WHERE used_generation < bound_generation) AS violations,
       count(*) FILTER (WHERE bound_generation IS NULL) AS undeterminable,
       coalesce(
           (array_agg(stream_id || '@' || stream_version || ': receipt key generation '
                      || used_generation || ' < bound ' || bound_generation
                      ORDER BY recorded_at)
                FILTER (WHERE used_generation < bound_generation))[1:20],
           '{}'
       ) AS examples
FROM traced
