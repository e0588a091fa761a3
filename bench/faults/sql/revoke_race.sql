-- The auditor's read for "a revoke races the dispatchers": every attempt admission of the
-- subscription's deliveries, with the subscription stream version its fencing check saw
-- (recorded in the admission), and the stream version of the revoke.
-- $1: subscription id.
WITH revoke AS (
    SELECT min(stream_version) AS version
    FROM events
    WHERE stream_id = 'subscription-' || $1
      AND type = 'subscription.state_changed'
      AND convert_from(data, 'UTF8')::jsonb ->> 'command' = 'revoke'
), planned AS (
    SELECT stream_id
    FROM events
    WHERE type = 'delivery.planned'
      AND convert_from(data, 'UTF8')::jsonb ->> 'subscription_id' = $1
), admitted AS (
    SELECT a.stream_id, a.global_position,
           (convert_from(a.data, 'UTF8')::jsonb ->> 'generation')::int AS generation,
           (convert_from(a.data, 'UTF8')::jsonb ->> 'subscription_version')::int AS seen_version
    FROM events AS a
    JOIN planned AS p ON p.stream_id = a.stream_id
    WHERE a.type = 'delivery.attempt_admitted'
)
SELECT r.version AS revoke_version, ad.stream_id, ad.generation, ad.seen_version
FROM revoke AS r
LEFT JOIN admitted AS ad ON true
ORDER BY ad.global_position
