-- dispatch_claim.sql, per (endpoint, subscription) pair: the pairs are named ($2 endpoints, $3
-- subscriptions, each with its endpoint's room $4, from dispatch_due_heads.sql less the blocked
-- endpoints, the subscriptions waiting for their rate limit's next token and other shares), and
-- each gives its oldest due rows through one range of deliveries_due_endpoint_subscription, so
-- a claim never walks a saturated endpoint's backlog (dispatch_claim.sql read every due row of
-- a full endpoint ahead of the others' in due order, and filtered it out: bench/HISTORY.md
-- "Session 7") nor a held subscription's (migration 1010). Then each endpoint keeps its oldest
-- rows up to its room, whichever subscriptions they are of, and the claim at most $1 of those
-- in turns by tenant (dispatch_claim.sql; engine/delivery/claim.py `fair_pick`). A rate-limited subscription gives
-- at most the whole tokens its bucket held at its last commit plus one (hookproof_rate_peek):
-- rows its bucket will hold back do not take the place of other rows in the claim's limit
-- ($1; the one more says how long to wait, dispatch_claim_rate.sql). The rows are then locked
-- with every condition checked again, exactly as in dispatch_claim.sql (fencing FOR SHARE of
-- the subscription, ordering, share, SKIP LOCKED); the columns are the same. Shares: $5
-- processes, this one $6, own share $7, rows of another share only once due for $8 seconds (0
-- for the own share; the pairs named are already of the share, so the per-pair scan repeats
-- only the delay: an expression it cannot estimate made the planner read an endpoint's whole
-- backlog and sort it). $9: rows this transaction already holds (an earlier claim statement in
-- it), left out. The per-pair scan matches the index's key and order (the endpoint's hash: an
-- index condition no other index serves), and the lock step looks the chosen rows up by
-- primary key, so the generic plan of this prepared statement (asyncpg prepares it; Postgres
-- may switch to a generic plan after five executions) reads no backlog either
-- (tests/delivery/test_claim_room.py runs it under force_generic_plan).
WITH pairs AS MATERIALIZED (
    SELECT p.endpoint_digest, p.subscription_id, p.n,
           CASE WHEN strpos(s.config, '"rate_limit":{') > 0 THEN
               least(p.n, 1 + hookproof_rate_peek(
                   s.subscription_id,
                   hookproof_rate_per_second(s.config),
                   hookproof_rate_burst(s.config)))
           ELSE p.n END AS take
    FROM hookproof_claim_pairs($2::text[], $3::text[], $4::int[]) AS p  -- migration 1070
    JOIN subscriptions AS s ON s.subscription_id = p.subscription_id
), due AS MATERIALIZED (
    SELECT c.delivery_id, c.next_attempt_at, c.tenant_id, p.endpoint_digest, p.n
    FROM pairs AS p
    CROSS JOIN LATERAL (
        SELECT d.delivery_id, d.next_attempt_at, d.tenant_id
        FROM deliveries AS d
        JOIN subscriptions AS s ON s.subscription_id = d.subscription_id
        WHERE hashtextextended(d.endpoint_digest, 0) = hashtextextended(p.endpoint_digest, 0)
          AND d.subscription_id = p.subscription_id
          AND d.endpoint_digest = p.endpoint_digest
          AND d.state IN ('PLANNED', 'RETRYABLE', 'UNKNOWN_TRANSPORT')
          AND d.next_attempt_at <= now() - make_interval(secs => $8::float8)
          AND NOT (d.delivery_id = ANY($9::text[]))
          AND (s.state IN ('ACTIVE', 'ROTATING', 'REVOKED', 'EXPIRED') OR s.generation <> d.generation)
          AND (d.ordering_gap_timeout_s IS NULL OR d.attempt > 0
               OR hookproof_ordering_ready(d.subscription_id, d.aggregate_id, d.aggregate_version,
                                           d.gap_skipped, d.created_at, d.ordering_gap_timeout_s))
        ORDER BY hashtextextended(d.endpoint_digest, 0), d.subscription_id, d.next_attempt_at
        LIMIT p.take
    ) AS c
), fit AS (  -- each endpoint's oldest up to its room, across its subscriptions
    SELECT r.delivery_id, r.tenant_id, r.next_attempt_at
    FROM (SELECT u.delivery_id, u.n, u.tenant_id, u.next_attempt_at,
                 row_number() OVER (PARTITION BY u.endpoint_digest
                                    ORDER BY u.next_attempt_at) AS k
          FROM due AS u) AS r
    WHERE r.k <= r.n
), chosen AS (  -- at most $1, in turns by tenant (engine/delivery/claim.py `fair_pick`)
    SELECT t.delivery_id
    FROM (SELECT f.delivery_id, f.next_attempt_at,
                 row_number() OVER (PARTITION BY f.tenant_id
                                    ORDER BY f.next_attempt_at, f.delivery_id) AS turn
          FROM fit AS f) AS t
    ORDER BY t.turn, t.next_attempt_at, t.delivery_id
    LIMIT $1
)
, locked AS (  -- the rows this claim locks; dispatch_claim_rate.sql keeps what the rate allows
SELECT d.delivery_id, d.event_id, d.tenant_id, d.subscription_id, d.generation, d.endpoint,
       d.endpoint_digest, d.payload_digest, d.owner, d.state, d.attempt, d.max_attempts,
       d.last_code, d.stream_version, d.created_at,
       d.aggregate_id, d.aggregate_version, d.ordering_gap_timeout_s, d.gap_skipped,
       CASE WHEN d.ordering_gap_timeout_s IS NOT NULL AND d.attempt = 0 THEN
           hookproof_ordering_below(d.subscription_id, d.aggregate_id, d.aggregate_version)
       END AS ordered_below,
       s.state AS sub_state, s.generation AS sub_generation, s.stream_version AS sub_version,
       s.config AS sub_config,
       (SELECT e.hash FROM events AS e
        WHERE e.stream_id = 'delivery-' || d.delivery_id
          AND e.stream_version = d.stream_version) AS head_hash,
       set_config('hookproof.notify', 'dispatch', true) AS tag,
       d.next_attempt_at AS due_at
FROM deliveries d
JOIN subscriptions s ON s.subscription_id = d.subscription_id
WHERE d.delivery_id = ANY (ARRAY(SELECT c.delivery_id FROM chosen AS c))  -- by primary key
  -- rechecks, never index conditions: as such (or as the due indexes' predicate) they had the
  -- planner read a due index, every waiting row filtered, instead of the chosen rows by key
  AND (d.state IN ('PLANNED', 'RETRYABLE', 'UNKNOWN_TRANSPORT')) IS TRUE
  AND (d.next_attempt_at <= now()) IS TRUE
  AND d.endpoint_digest = ANY($2::text[])
  AND ($5::int <= 1
       OR ((mod(abs(hashtext(d.endpoint_digest)::bigint), $5::int) = $6::int) = $7::bool
           AND d.next_attempt_at <= now() - make_interval(secs => $8::float8)))
  AND (s.state IN ('ACTIVE', 'ROTATING', 'REVOKED', 'EXPIRED') OR s.generation <> d.generation)
  AND (d.ordering_gap_timeout_s IS NULL OR d.attempt > 0
       OR hookproof_ordering_ready(d.subscription_id, d.aggregate_id, d.aggregate_version,
                                   d.gap_skipped, d.created_at, d.ordering_gap_timeout_s))
ORDER BY d.next_attempt_at
LIMIT $1
FOR UPDATE OF d SKIP LOCKED
FOR SHARE OF s
)
-- include: dispatch_claim_rate
