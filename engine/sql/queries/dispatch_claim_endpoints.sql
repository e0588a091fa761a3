-- dispatch_claim.sql, per endpoint: the endpoints are named ($2, each with its room $3, from
-- dispatch_due_heads.sql less the blocked ones and other shares), and each gives its oldest
-- due rows up to its room through one range of deliveries_due_endpoint, so a claim never
-- walks a saturated endpoint's backlog (dispatch_claim.sql read every due row of a full
-- endpoint ahead of the others' in due order, and filtered it out: bench/README.md
-- "Session 7"). The rows are then locked with every condition checked again, exactly as in
-- dispatch_claim.sql (fencing FOR SHARE of the subscription, ordering, share, SKIP LOCKED);
-- the columns are the same. Shares: $4 processes, this one $5, own share $6, rows of another
-- share only once due for $7 seconds (0 for the own share; the endpoints named are already of
-- the share, so the per-endpoint scan repeats only the delay: an expression it cannot
-- estimate made the planner read an endpoint's whole backlog and sort it). The per-endpoint
-- scan matches deliveries_due_endpoint's key and order (the endpoint's hash: an index
-- condition no other index serves), and the lock step looks the chosen rows up by primary
-- key, so the generic plan of this prepared statement (asyncpg prepares it; Postgres may switch
-- to a generic plan after five executions) reads no backlog either
-- (tests/delivery/test_claim_room.py runs it under force_generic_plan).
WITH due AS MATERIALIZED (
    SELECT c.delivery_id
    FROM unnest($2::text[], $3::int[]) AS room(endpoint_digest, n)
    CROSS JOIN LATERAL (
        SELECT d.delivery_id
        FROM deliveries AS d
        JOIN subscriptions AS s ON s.subscription_id = d.subscription_id
        WHERE hashtextextended(d.endpoint_digest, 0) = hashtextextended(room.endpoint_digest, 0)
          AND d.endpoint_digest = room.endpoint_digest
          AND d.state IN ('PLANNED', 'RETRYABLE', 'UNKNOWN_TRANSPORT')
          AND d.next_attempt_at <= now() - make_interval(secs => $7::float8)
          AND (s.state IN ('ACTIVE', 'ROTATING', 'REVOKED', 'EXPIRED') OR s.generation <> d.generation)
          AND (d.ordering_gap_timeout_s IS NULL OR d.attempt > 0
               OR hookproof_ordering_ready(d.subscription_id, d.aggregate_id, d.aggregate_version,
                                           d.gap_skipped, d.created_at, d.ordering_gap_timeout_s))
        ORDER BY hashtextextended(d.endpoint_digest, 0), d.next_attempt_at  -- the index's order
        LIMIT room.n
    ) AS c
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
WHERE d.delivery_id = ANY (ARRAY(SELECT u.delivery_id FROM due AS u))  -- by primary key
  -- rechecks, never index conditions: as such (or as the due indexes' predicate) they had the
  -- planner read a due index, every waiting row filtered, instead of the chosen rows by key
  AND (d.state IN ('PLANNED', 'RETRYABLE', 'UNKNOWN_TRANSPORT')) IS TRUE
  AND (d.next_attempt_at <= now()) IS TRUE
  AND d.endpoint_digest = ANY($2::text[])
  AND ($4::int <= 1
       OR ((mod(abs(hashtext(d.endpoint_digest)::bigint), $4::int) = $5::int) = $6::bool
           AND d.next_attempt_at <= now() - make_interval(secs => $7::float8)))
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
