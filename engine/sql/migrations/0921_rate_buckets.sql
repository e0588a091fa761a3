-- Rate limits (issue 35, DESIGN.md section 14): one token bucket per subscription with a
-- `rateLimit` {perSecond, burst} in its config, shared by every worker and daemon on this
-- database. The claim takes from it in its own statement (dispatch_claim_rate.sql): at most
-- burst + perSecond * t grants in any window of t seconds. A row is made on the first claim
-- (full), and only hookproof_rate_take writes it.
CREATE TABLE IF NOT EXISTS subscription_rate_buckets (
    subscription_id text PRIMARY KEY,
    tokens double precision NOT NULL,
    updated_at timestamptz NOT NULL
);

-- Grant up to p_wanted requests now: refill by p_rate per second since the last take (never
-- above p_burst), take whole tokens. The row lock serialises concurrent claims (each reads the
-- bucket the one before committed; clock_timestamp() after the lock, so time never runs back).
-- Claims call it in subscription order, so two claims never wait on each other in a circle.
CREATE OR REPLACE FUNCTION hookproof_rate_take(
    p_subscription text, p_rate double precision, p_burst double precision, p_wanted int
) RETURNS int
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    held_tokens double precision;
    held_at timestamptz;
    now_at timestamptz;
    have double precision;
    granted int;
BEGIN
    INSERT INTO subscription_rate_buckets (subscription_id, tokens, updated_at)
    VALUES (p_subscription, p_burst, clock_timestamp())
    ON CONFLICT (subscription_id) DO NOTHING;
    SELECT b.tokens, b.updated_at INTO held_tokens, held_at
    FROM subscription_rate_buckets AS b
    WHERE b.subscription_id = p_subscription
    FOR UPDATE;
    now_at := clock_timestamp();
    have := least(p_burst,
                  held_tokens + p_rate * greatest(0, extract(epoch FROM now_at - held_at)));
    granted := greatest(0, least(p_wanted, floor(have)::int));
    UPDATE subscription_rate_buckets
    SET tokens = have - granted, updated_at = greatest(held_at, now_at)
    WHERE subscription_id = p_subscription;
    RETURN granted;
END;
$$;
