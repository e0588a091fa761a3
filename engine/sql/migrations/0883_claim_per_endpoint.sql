-- A claim per endpoint (dispatch_due_heads.sql, dispatch_claim_endpoints.sql): the waiting rows
-- by endpoint and due time, so a claim finds each endpoint's earliest row with one probe (the
-- first entry after the previous endpoint's) and takes an endpoint's oldest rows up to its
-- room with one range, never walking a saturated endpoint's backlog (bench/README.md
-- "Session 7"). One entry per planned or retried row, as deliveries_due: that index stays for
-- the queue metrics and the claim by due order when many endpoints wait.
CREATE INDEX IF NOT EXISTS deliveries_due_endpoint ON deliveries (endpoint_digest, next_attempt_at)
    WHERE state IN ('PLANNED', 'RETRYABLE', 'UNKNOWN_TRANSPORT');
