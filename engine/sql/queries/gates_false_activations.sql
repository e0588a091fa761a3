-- Gate: challenge false activations (must be 0).
-- An activation (subscription.state_changed with command 'activate', or any transition to
-- ACTIVE) is proved only when the event immediately before it in the stream is a
-- subscription.challenge_passed for the same generation, whose challenge was issued earlier in
-- the stream for that generation and had not been answered (passed or failed) before.
-- $1: since (NULL = whole log), applied to the activation's recorded_at.
WITH activation AS (
    SELECT e.stream_id, e.stream_version, e.recorded_at,
           convert_from(e.data, 'UTF8')::jsonb AS d
    FROM events AS e
    WHERE e.category = 'subscription'
      AND e.type = 'subscription.state_changed'
      AND ($1::timestamptz IS NULL OR e.recorded_at >= $1)
), checked AS (
    SELECT a.stream_id, a.stream_version, a.recorded_at,
           (a.d ->> 'generation')::int AS generation,
           p.type AS prev_type,
           p.d ->> 'challenge_id' AS challenge_id,
           CASE
               WHEN p.type IS DISTINCT FROM 'subscription.challenge_passed'
                   THEN 'no_challenge_passed_immediately_before'
               WHEN (p.d ->> 'generation')::int IS DISTINCT FROM (a.d ->> 'generation')::int
                   THEN 'challenge_for_another_generation'
               WHEN NOT EXISTS (
                   SELECT 1 FROM events AS i
                   WHERE i.stream_id = a.stream_id
                     AND i.stream_version < p.stream_version
                     AND i.type = 'subscription.challenge_issued'
                     AND convert_from(i.data, 'UTF8')::jsonb ->> 'challenge_id' = p.d ->> 'challenge_id'
                     AND (convert_from(i.data, 'UTF8')::jsonb ->> 'generation')::int
                         = (a.d ->> 'generation')::int
               ) THEN 'challenge_never_issued_for_generation'
               WHEN EXISTS (
                   SELECT 1 FROM events AS r
                   WHERE r.stream_id = a.stream_id
                     AND r.stream_version < p.stream_version
                     AND r.type IN ('subscription.challenge_passed', 'subscription.challenge_failed')
                     AND convert_from(r.data, 'UTF8')::jsonb ->> 'challenge_id' = p.d ->> 'challenge_id'
               ) THEN 'challenge_answer_replayed'
           END AS problem
    FROM activation AS a
    LEFT JOIN LATERAL (
        SELECT pe.type, pe.stream_version, convert_from(pe.data, 'UTF8')::jsonb AS d
        FROM events AS pe
        WHERE pe.stream_id = a.stream_id AND pe.stream_version = a.stream_version - 1
    ) AS p ON true
    WHERE a.d ->> 'command' = 'activate' OR a.d ->> 'to_state' = 'ACTIVE'
)
SELECT count(*) AS total,
       count(*) FILTER (WHERE problem IS NOT NULL) AS violations,
       coalesce(
           (array_agg(stream_id || '@' || stream_version || ': ' || problem
                      ORDER BY recorded_at) FILTER (WHERE problem IS NOT NULL))[1:20],
           '{}'
       ) AS examples
FROM checked
