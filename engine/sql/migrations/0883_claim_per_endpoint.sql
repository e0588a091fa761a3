-- A claim per endpoint (dispatch_due_heads.sql, dispatch_claim_endpoints.sql): the waiting rows
-- by endpoint and due time, so a claim finds each endpoint's earliest row with one probe (the
-- first entry after the previous endpoint's) and takes an endpoint's oldest rows up to its
-- room with one range, never walking a saturated endpoint's backlog (bench/HISTORY.md
-- "Session 7"). The endpoint is keyed by a 64-bit hash of its digest, not the 64-character
-- digest itself: 163 -> ~70 bytes of WAL per planned row (the queries compare the digest too,
-- so two endpoints sharing a hash cost a longer range, never a wrong row). One entry per
-- planned or retried row, as deliveries_due: that index stays for the queue metrics and the
-- claim by due order when no endpoint is full or many endpoints wait.
CREATE INDEX IF NOT EXISTS deliveries_due_endpoint
    ON deliveries (hashtextextended(endpoint_digest, 0), next_attempt_at)
    WHERE state IN ('PLANNED', 'RETRYABLE', 'UNKNOWN_TRANSPORT');
