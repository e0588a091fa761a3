-- Gate: accepted signatures under revoked keys (must be 0).
-- Every delivery.endpoint_accepted is traced to its attempt's delivery.attempt_admitted (same
-- delivery, same attempt number, latest before it); the attempt signed with key_id. A
-- violation: that key's stream has key.revoked recorded before the admission.
-- $1: since (NULL = whole log), applied to the acceptance's recorded_at.
WITH accepted AS (
    SELECT e.stream_id, e.stream_version, e.recorded_at,
           (convert_from(e.data, 'UTF8')::jsonb ->> 'attempt')::int AS attempt
    FROM events AS e
    WHERE e.category = 'delivery'
      AND e.type = 'delivery.endpoint_accepted'
      AND ($1::timestamptz IS NULL OR e.recorded_at >= $1)
), traced AS (
    SELECT acc.stream_id, acc.stream_version, acc.recorded_at, adm.key_id, adm.admitted_at,
           (SELECT min(k.recorded_at) FROM events AS k
            WHERE k.stream_id = 'key-' || adm.key_id AND k.type = 'key.revoked') AS revoked_at,
           EXISTS (SELECT 1 FROM events AS c
                   WHERE c.stream_id = 'key-' || adm.key_id AND c.stream_version = 1) AS known
    FROM accepted AS acc
    LEFT JOIN LATERAL (
        SELECT convert_from(a.data, 'UTF8')::jsonb ->> 'key_id' AS key_id,
               a.recorded_at AS admitted_at
        FROM events AS a
        WHERE a.stream_id = acc.stream_id
          AND a.stream_version < acc.stream_version
          AND a.type = 'delivery.attempt_admitted'
          AND (convert_from(a.data, 'UTF8')::jsonb ->> 'attempt')::int = acc.attempt
        ORDER BY a.stream_version DESC
        LIMIT 1
    ) AS adm ON true
)
SELECT count(*) AS total,
       count(*) FILTER (WHERE revoked_at < admitted_at) AS violations,
       count(*) FILTER (WHERE key_id IS NULL) AS untraced,
       count(*) FILTER (WHERE key_id IS NOT NULL AND NOT known) AS unknown_keys,
       coalesce(
           (array_agg(stream_id || '@' || stream_version || ': key ' || key_id
                      || ' revoked ' || revoked_at::text || ', admitted ' || admitted_at::text
                      ORDER BY recorded_at) FILTER (WHERE revoked_at < admitted_at))[1:20],
           '{}'
       ) AS examples
FROM traced
