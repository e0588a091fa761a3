-- The (endpoint, subscription) pairs with waiting rows, in the order of the endpoint digest's
-- 64-bit hash and then the subscription, each with its earliest next_attempt_at and its
-- endpoint share (of $2 processes; dispatch_claim.sql's share rule): at most $1 + 1 of them. A
-- loose index scan of deliveries_due_endpoint_subscription (migration 1010): one probe per
-- pair (the first entry after the previous pair's is the next pair's earliest row), however
-- long each backlog. Pairs, not endpoints: a subscription waiting for its rate limit's next
-- token is left out of the claim by name, and another subscription to the same URL is still
-- claimed. (Two endpoints whose digests share a 64-bit hash, about 1e-16 for 64 endpoints,
-- show as one for a subscription on both: the other is claimed by due order, once no endpoint
-- is full.) More than $1 rows back: too many pairs wait for a claim per pair, and the claim
-- goes by due order (engine/delivery/repository.py `claim`).
WITH RECURSIVE heads AS (
    (SELECT hashtextextended(d.endpoint_digest, 0) AS k, d.subscription_id, d.endpoint_digest,
            d.next_attempt_at, 1 AS n
     FROM deliveries AS d
     WHERE d.state IN ('PLANNED', 'RETRYABLE', 'UNKNOWN_TRANSPORT')
     ORDER BY hashtextextended(d.endpoint_digest, 0), d.subscription_id, d.next_attempt_at
     LIMIT 1)
    UNION ALL
    SELECT nx.k, nx.subscription_id, nx.endpoint_digest, nx.next_attempt_at, h.n + 1
    FROM heads AS h
    CROSS JOIN LATERAL (
        SELECT hashtextextended(d.endpoint_digest, 0) AS k, d.subscription_id, d.endpoint_digest,
               d.next_attempt_at
        FROM deliveries AS d
        WHERE d.state IN ('PLANNED', 'RETRYABLE', 'UNKNOWN_TRANSPORT')
          AND (hashtextextended(d.endpoint_digest, 0), d.subscription_id) > (h.k, h.subscription_id)
        ORDER BY hashtextextended(d.endpoint_digest, 0), d.subscription_id, d.next_attempt_at
        LIMIT 1
    ) AS nx
    WHERE h.n <= $1::int
)
SELECT h.endpoint_digest,
       h.subscription_id,
       h.next_attempt_at <= now() AS due,
       mod(abs(hashtext(h.endpoint_digest)::bigint), greatest($2::int, 1)) AS share
FROM heads AS h
