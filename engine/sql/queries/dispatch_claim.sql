-- Claim due deliveries and, in the same statement, lock their subscription rows FOR SHARE:
-- the fencing check. A revoke or generation change holds the row exclusively while it
-- commits, so an admission and a revoke cannot both win; after waiting, the newest row
-- version is what we see (READ COMMITTED re-check).
-- The state lists are the ledger table's admitting states and the subscription states a
-- claim handles (engine/delivery/admission.py `claimable`); tests/delivery/test_decisions.py
-- checks that they match.
-- Ordered delivery (ordering_gap_timeout_s set): a first attempt of version v is claimable
-- only when no earlier version of its aggregate for this subscription is still before
-- ENDPOINT_ACCEPTED (a dead letter holds it until replayed or skipped), and v-1 is known or
-- v <= 1 or the gap was skipped or has waited its timeout (hookproof_ordering_ready, in
-- migration 0651; engine/delivery/ordering.py names the gap to record). Done is monotonic,
-- so two dispatchers cannot break the order: a later version waits for a committed
-- acceptance of the one before it. Unordered rows never call the functions.
-- Endpoint shares ($3 processes, this one $4): with $5 true, only this process's share of the
-- endpoints (hashtext of the endpoint digest); with $5 false, the other shares' rows that have
-- been due at least $6 seconds (a busy or dead sibling's work is never stranded). $3 <= 1:
-- every row. engine/delivery/claim.py `claim_share` chooses the arguments.
-- tag: the claiming transaction is tagged 'dispatch' for the events channel (migration 0710:
-- its admissions make nothing else due, the dispatchers are not woken by them).
-- head_hash: the hash of the stream's event at the row's stream_version, so the admission's
-- append does not read the stream head again (hookproof.events.StreamAppend.expected_hash;
-- NULL when this statement's snapshot does not see it: the append then reads the head).
-- Per endpoint, never more rows than it has room for: the due rows are first chosen without
-- locks (at most $7, in due order; each endpoint's first rows up to its room: $9 for the
-- endpoints in $8, $10 for any other; a rate-limited subscription's first rows up to the whole
-- tokens its bucket held at its last commit, plus one that says how long to wait:
-- hookproof_rate_peek, migration 1010, so rows its bucket will hold back do not take the place
-- of other rows in the claim's limit; none of the subscriptions in $11, waiting for their
-- next token), then at most $1 of them in turns by tenant (every tenant's oldest row, then every
-- tenant's second, ...: engine/delivery/claim.py `fair_pick`; issue 46: one tenant's backlog,
-- due first, never fills the claim another tenant's row waits for), and only those are locked.
-- A claim used to lock its
-- whole LIMIT in due order and leave what a nearly full endpoint could not take, so a busy
-- endpoint's backlog cost a row lock (and its WAL record) per row per claim (bench/HISTORY.md
-- "Session 6"). The conditions are checked again on the locked rows (READ COMMITTED: the
-- newest version of each), so fencing, ordering and SKIP LOCKED are as they were.
-- The chosen ids are one array, computed once (an init plan), and the locked rows are read by
-- primary key. `IN (SELECT ... FROM chosen)` let a generic plan cached while the ledger was
-- empty (a fresh database: every estimate one row) run the choice, window functions and all,
-- once per due row: 0.4-1.4 s per claim of 400 rows until autovacuum's next ANALYZE
-- (bench/HISTORY.md "Session 13: the claim's plan on a fresh database").
WITH due AS MATERIALIZED (
    SELECT d.delivery_id, d.endpoint_digest, d.subscription_id, d.next_attempt_at, d.tenant_id
    FROM deliveries d
    JOIN subscriptions s ON s.subscription_id = d.subscription_id
    WHERE d.state IN ('PLANNED', 'RETRYABLE', 'UNKNOWN_TRANSPORT')
      AND d.next_attempt_at <= now()
      AND NOT (d.endpoint_digest = ANY($2::text[]))
      AND NOT (d.subscription_id = ANY($11::text[]))
      AND ($3::int <= 1
           OR ((mod(abs(hashtext(d.endpoint_digest)::bigint), $3::int) = $4::int) = $5::bool
               AND d.next_attempt_at <= now() - make_interval(secs => $6::float8)))
      AND (s.state IN ('ACTIVE', 'ROTATING', 'REVOKED', 'EXPIRED') OR s.generation <> d.generation)
      AND (d.ordering_gap_timeout_s IS NULL OR d.attempt > 0
           OR hookproof_ordering_ready(d.subscription_id, d.aggregate_id, d.aggregate_version,
                                       d.gap_skipped, d.created_at, d.ordering_gap_timeout_s))
    ORDER BY d.next_attempt_at
    LIMIT $7
), caps AS (  -- a rate-limited subscription: its bucket's whole tokens (last committed) + 1
    SELECT s.subscription_id,
           1 + hookproof_rate_peek(s.subscription_id,
                                   hookproof_rate_per_second(s.config),
                                   hookproof_rate_burst(s.config)) AS cap
    FROM subscriptions AS s
    WHERE s.subscription_id IN (SELECT u.subscription_id FROM due AS u)
      AND strpos(s.config, '"rate_limit":{') > 0
), fit AS (  -- each endpoint's rows within its room
    SELECT r.delivery_id, r.tenant_id, r.next_attempt_at
    FROM (SELECT v.delivery_id, v.endpoint_digest, v.tenant_id, v.next_attempt_at,
                 row_number() OVER (PARTITION BY v.endpoint_digest
                                    ORDER BY v.next_attempt_at) AS k
          FROM (SELECT u.*, c.cap,
                       row_number() OVER (PARTITION BY u.subscription_id
                                          ORDER BY u.next_attempt_at) AS ks
                FROM due AS u LEFT JOIN caps AS c USING (subscription_id)) AS v
          WHERE v.cap IS NULL OR v.ks <= v.cap) AS r
    LEFT JOIN unnest($8::text[], $9::int[]) AS room(endpoint_digest, n) USING (endpoint_digest)
    WHERE r.k <= coalesce(room.n, $10::int)
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
  AND d.state IN ('PLANNED', 'RETRYABLE', 'UNKNOWN_TRANSPORT')
  AND d.next_attempt_at <= now()
  AND NOT (d.endpoint_digest = ANY($2::text[]))
  AND ($3::int <= 1
       OR ((mod(abs(hashtext(d.endpoint_digest)::bigint), $3::int) = $4::int) = $5::bool
           AND d.next_attempt_at <= now() - make_interval(secs => $6::float8)))
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
