-- Gate: deliveries with a second applied effect (receipt-enabled subscriptions: must be 0).
-- Deliveries are the delivery.planned events (receipts = whether the subscription had the
-- receipt contract). For receipt-enabled (subscription, event) pairs, a violation is more
-- than one delivery.application_confirmed with result "applied", or confirmations carrying
-- different operation ids. Without receipts the application layer is unobservable: counted,
-- never judged.
-- $1: since (NULL = whole log), applied to the planning's recorded_at.
WITH planned AS (
    SELECT DISTINCT ON (d ->> 'subscription_id', d ->> 'event_id')
           d ->> 'subscription_id' AS subscription_id,
           d ->> 'event_id' AS event_id,
           coalesce((d ->> 'receipts')::boolean, false) AS receipts,
           e.recorded_at
    FROM events AS e
    CROSS JOIN LATERAL (SELECT convert_from(e.data, 'UTF8')::jsonb AS d) AS j
    WHERE e.category = 'delivery'
      AND e.type = 'delivery.planned'
      AND ($1::timestamptz IS NULL OR e.recorded_at >= $1)
    ORDER BY d ->> 'subscription_id', d ->> 'event_id', e.global_position
), confirmations AS (
    SELECT d ->> 'subscription_id' AS subscription_id,
           d ->> 'event_id' AS event_id,
           count(*) FILTER (WHERE d ->> 'result' = 'applied') AS applied,
           count(DISTINCT d ->> 'operation_id') AS operations
    FROM events AS e
    CROSS JOIN LATERAL (SELECT convert_from(e.data, 'UTF8')::jsonb AS d) AS j
    WHERE e.category = 'delivery'
      AND e.type = 'delivery.application_confirmed'
    GROUP BY 1, 2
), judged AS (
    SELECT p.*, coalesce(c.applied, 0) AS applied, coalesce(c.operations, 0) AS operations
    FROM planned AS p
    LEFT JOIN confirmations AS c USING (subscription_id, event_id)
)
SELECT count(*) FILTER (WHERE receipts) AS receipt_deliveries,
       count(*) FILTER (WHERE receipts AND applied > 0) AS confirmed,
       count(*) FILTER (WHERE receipts AND (applied > 1 OR operations > 1)) AS violations,
       count(*) FILTER (WHERE NOT receipts) AS unobservable,
       coalesce(
           (array_agg(subscription_id || '/' || event_id || ': ' || applied
                      || ' applied, ' || operations || ' operation id(s)'
                      ORDER BY recorded_at)
                FILTER (WHERE receipts AND (applied > 1 OR operations > 1)))[1:20],
           '{}'
       ) AS examples
FROM judged
