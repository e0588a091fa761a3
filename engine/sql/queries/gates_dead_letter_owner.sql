-- Gate: dead letters without an owner (must be 0): delivery.dead_lettered whose owner is
-- missing or blank.
-- $1: since (NULL = whole log), applied to the dead letter's recorded_at.
SELECT count(*) AS total,
       count(*) FILTER (WHERE coalesce(btrim(d ->> 'owner'), '') = '') AS violations,
       coalesce(
           (array_agg(e.stream_id || '@' || e.stream_version || ': no owner'
                      ORDER BY e.recorded_at)
                FILTER (WHERE coalesce(btrim(d ->> 'owner'), '') = ''))[1:20],
           '{}'
       ) AS examples
FROM events AS e
CROSS JOIN LATERAL (SELECT convert_from(e.data, 'UTF8')::jsonb AS d) AS j
WHERE e.category = 'delivery'
  AND e.type = 'delivery.dead_lettered'
  AND ($1::timestamptz IS NULL OR e.recorded_at >= $1)
