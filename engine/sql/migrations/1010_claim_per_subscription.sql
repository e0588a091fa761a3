-- Rate limits (issue 35, DESIGN.md section 14), session 11: a rate-limited subscription's
-- backlog (rows due now that its bucket holds back) must not delay any other subscription's
-- rows, at another endpoint or at the same URL (the limit is the subscription's).
--
-- The waiting rows by endpoint, then subscription, then due time: the claim per endpoint
-- (dispatch_due_heads.sql, dispatch_claim_endpoints.sql) finds each (endpoint, subscription)
-- pair's earliest row with one probe and takes a pair's oldest rows with one range, so a
-- subscription waiting for its next token is left out by name (never walked), while another
-- subscription to the same URL is still claimed. It replaces deliveries_due_endpoint (same
-- leading key, one more column; the claims were its only readers).
CREATE INDEX IF NOT EXISTS deliveries_due_endpoint_subscription
    ON deliveries (hashtextextended(endpoint_digest, 0), subscription_id, next_attempt_at)
    WHERE state IN ('PLANNED', 'RETRYABLE', 'UNKNOWN_TRANSPORT');
DROP INDEX IF EXISTS deliveries_due_endpoint;

-- How many whole tokens a subscription's bucket holds now, as last committed (no lock: a claim
-- takes at most this many of the subscription's rows, plus one that says how long to wait,
-- so rows its bucket would hold back do not take the room of other rows in the claim's
-- limit). A bucket not made yet is full.
CREATE OR REPLACE FUNCTION hookproof_rate_peek(
    p_subscription text, p_rate double precision, p_burst double precision
) RETURNS int
LANGUAGE sql STABLE AS $$
    SELECT floor(coalesce(
        (SELECT (hookproof_rate_refill(b.tokens, extract(epoch FROM now() - b.updated_at)::float8,
                                       p_rate, p_burst, 0)).tokens
         FROM subscription_rate_buckets AS b
         WHERE b.subscription_id = p_subscription),
        p_burst))::int
$$;

-- Take up to p_wanted from a subscription's bucket (made full on its first take), never
-- waiting for another claim: a bucket another claim holds (its transaction still open) grants
-- nothing now, and wait_s says when it holds its next whole token as last committed. The row
-- lock used to queue every claim that held one of the subscription's rows behind the claim
-- holding the bucket, until it committed: the other subscriptions' rows in those claims too.
-- The bound is unchanged (each grant is made under the row lock, from the committed state).
CREATE OR REPLACE FUNCTION hookproof_rate_grant(
    p_subscription text, p_rate double precision, p_burst double precision, p_wanted int,
    OUT granted int, OUT wait_s double precision
)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    held_tokens double precision;
    held_at timestamptz;
    now_at timestamptz;
    r record;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM subscription_rate_buckets AS b
                   WHERE b.subscription_id = p_subscription) THEN
        INSERT INTO subscription_rate_buckets (subscription_id, tokens, updated_at)
        VALUES (p_subscription, p_burst, clock_timestamp())
        ON CONFLICT (subscription_id) DO NOTHING;
    END IF;
    SELECT b.tokens, b.updated_at INTO held_tokens, held_at
    FROM subscription_rate_buckets AS b
    WHERE b.subscription_id = p_subscription
    FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN  -- another claim is taking: nothing now, back at the next whole token
        SELECT b.tokens, b.updated_at INTO held_tokens, held_at
        FROM subscription_rate_buckets AS b
        WHERE b.subscription_id = p_subscription;
        SELECT * INTO r
        FROM hookproof_rate_refill(coalesce(held_tokens, 0),
                                   extract(epoch FROM clock_timestamp()
                                           - coalesce(held_at, clock_timestamp()))::float8,
                                   p_rate, p_burst, 0);
        granted := 0;
        wait_s := CASE WHEN p_wanted > 0
                       THEN (1 - (r.tokens - floor(r.tokens))) / p_rate END;
        RETURN;
    END IF;
    now_at := clock_timestamp();
    SELECT * INTO r
    FROM hookproof_rate_refill(held_tokens, extract(epoch FROM now_at - held_at)::float8,
                               p_rate, p_burst, p_wanted);
    UPDATE subscription_rate_buckets
    SET tokens = r.tokens, updated_at = greatest(held_at, now_at)
    WHERE subscription_id = p_subscription;
    granted := r.granted;
    wait_s := r.wait_s;
END;
$$;
