-- The endpoints with waiting rows, in the order of their digests' 64-bit hash, each with its
-- earliest next_attempt_at and its endpoint share (of $2 processes; dispatch_claim.sql's share
-- rule): at most $1 + 1 of them. A loose index scan of deliveries_due_endpoint: one probe per
-- endpoint (the first entry after the previous endpoint's is the next endpoint's earliest
-- row), however long each endpoint's backlog. (Two endpoints whose digests share a 64-bit hash,
-- about 1e-16 for 64 endpoints, show as one: the other is claimed by due order, once no
-- endpoint is full.) More than $1 rows back: too many endpoints wait for a claim per
-- endpoint, and the claim goes by due order (engine/delivery/repository.py `claim`).
WITH RECURSIVE heads AS (
    (SELECT hashtextextended(d.endpoint_digest, 0) AS k, d.endpoint_digest, d.next_attempt_at,
            1 AS n
     FROM deliveries AS d
     WHERE d.state IN ('PLANNED', 'RETRYABLE', 'UNKNOWN_TRANSPORT')
     ORDER BY hashtextextended(d.endpoint_digest, 0), d.next_attempt_at
     LIMIT 1)
    UNION ALL
    SELECT nx.k, nx.endpoint_digest, nx.next_attempt_at, h.n + 1
    FROM heads AS h
    CROSS JOIN LATERAL (
        SELECT hashtextextended(d.endpoint_digest, 0) AS k, d.endpoint_digest, d.next_attempt_at
        FROM deliveries AS d
        WHERE d.state IN ('PLANNED', 'RETRYABLE', 'UNKNOWN_TRANSPORT')
          AND hashtextextended(d.endpoint_digest, 0) > h.k
        ORDER BY hashtextextended(d.endpoint_digest, 0), d.next_attempt_at
        LIMIT 1
    ) AS nx
    WHERE h.n <= $1::int
)
SELECT h.endpoint_digest,
       h.next_attempt_at <= now() AS due,
       mod(abs(hashtext(h.endpoint_digest)::bigint), greatest($2::int, 1)) AS share
FROM heads AS h
