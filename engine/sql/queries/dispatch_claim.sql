-- Claim due deliveries and, in the same statement, lock their subscription rows FOR SHARE:
-- the fencing check. A revoke or generation change holds the row exclusively while it
-- commits, so an admission and a revoke cannot both win; after waiting, the newest row
-- version is what we see (READ COMMITTED re-check).
-- The state lists are the ledger table's admitting states and the subscription states a
-- claim handles (engine/delivery/ledger.py `claimable`); tests/delivery/test_decisions.py
-- checks that they match.
SELECT d.delivery_id, d.event_id, d.tenant_id, d.subscription_id, d.generation, d.endpoint,
       d.endpoint_digest, d.payload_digest, d.owner, d.state, d.attempt, d.max_attempts,
       d.last_code, d.stream_version,
       s.state AS sub_state, s.generation AS sub_generation, s.stream_version AS sub_version,
       s.config AS sub_config
FROM deliveries d
JOIN subscriptions s ON s.subscription_id = d.subscription_id
WHERE d.state IN ('PLANNED', 'RETRYABLE', 'UNKNOWN_TRANSPORT')
  AND d.next_attempt_at <= now()
  AND NOT (d.endpoint_digest = ANY($2::text[]))
  AND (s.state IN ('ACTIVE', 'ROTATING', 'REVOKED', 'EXPIRED') OR s.generation <> d.generation)
ORDER BY d.next_attempt_at
LIMIT $1
FOR UPDATE OF d SKIP LOCKED
FOR SHARE OF s
