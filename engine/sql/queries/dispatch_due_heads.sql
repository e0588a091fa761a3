-- The endpoints with waiting rows, in digest order, each with its earliest next_attempt_at and
-- its endpoint share (of $2 processes; dispatch_claim.sql's share rule): at most $1 + 1 of
-- them. A loose index scan of deliveries_due_endpoint: one probe per endpoint (the first entry
-- after the previous endpoint's is the next endpoint's earliest row), however long each
-- endpoint's backlog. More than $1 rows back: too many endpoints wait for a claim per
-- endpoint, and the claim goes by due order (engine/delivery/repository.py `claim`).
WITH RECURSIVE heads AS (
    (SELECT d.endpoint_digest, d.next_attempt_at, 1 AS n
     FROM deliveries AS d
     WHERE d.state IN ('PLANNED', 'RETRYABLE', 'UNKNOWN_TRANSPORT')
     ORDER BY d.endpoint_digest, d.next_attempt_at
     LIMIT 1)
    UNION ALL
    SELECT nx.endpoint_digest, nx.next_attempt_at, h.n + 1
    FROM heads AS h
    CROSS JOIN LATERAL (
        SELECT d.endpoint_digest, d.next_attempt_at
        FROM deliveries AS d
        WHERE d.state IN ('PLANNED', 'RETRYABLE', 'UNKNOWN_TRANSPORT')
          AND d.endpoint_digest > h.endpoint_digest
        ORDER BY d.endpoint_digest, d.next_attempt_at
        LIMIT 1
    ) AS nx
    WHERE h.n <= $1::int
)
SELECT h.endpoint_digest,
       h.next_attempt_at <= now() AS due,
       mod(abs(hashtext(h.endpoint_digest)::bigint), greatest($2::int, 1)) AS share,
       -- The claim that follows in this transaction (dispatch_claim_endpoints.sql) is planned
       -- for its own arguments: its generic plan (after five executions of the prepared
       -- statement) read the due index in time order and filtered by endpoint, walking the
       -- backlogs this claim exists to skip. The setting as it was (the first row's, read
       -- before it changes) goes back in that statement, so the rest of the transaction keeps
       -- its cached plans; local either way: it ends with the claiming transaction.
       current_setting('plan_cache_mode') AS plan_cache_mode_was,
       set_config('plan_cache_mode', 'force_custom_plan', true) AS plan_cache_mode
FROM heads AS h
