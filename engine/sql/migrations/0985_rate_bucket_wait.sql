-- Rate limits (issue 35, DESIGN.md section 14), session 10: the bucket's arithmetic as one
-- immutable function (hookproof_rate_refill: the same as engine/delivery/rate_decide.py `take`,
-- checked against it by tests/delivery/test_rate_decide.py), and a take that also says how long
-- until the bucket holds a whole token again when it granted fewer than wanted
-- (hookproof_rate_grant): the claim returns that wait on the rows it held back, so a
-- dispatcher comes back when the next token is there instead of a poll interval later (a
-- bucket no one takes from while it is full loses the refill: the observed rate fell below
-- perSecond whenever every dispatcher slept longer than (burst - 1) / perSecond).

-- Refill p_tokens by p_rate per second over p_elapsed seconds (never above p_burst, time never
-- runs back), grant up to p_wanted whole tokens: (granted, tokens left, seconds until one whole
-- token when fewer than p_wanted were granted, else NULL).
CREATE OR REPLACE FUNCTION hookproof_rate_refill(
    p_tokens double precision, p_elapsed double precision, p_rate double precision,
    p_burst double precision, p_wanted int,
    OUT granted int, OUT tokens double precision, OUT wait_s double precision
)
LANGUAGE sql IMMUTABLE AS $$
    SELECT g.granted, g.have - g.granted,
           CASE WHEN g.granted < p_wanted
                THEN greatest(0, (1 - (g.have - g.granted)) / p_rate) END
    FROM (SELECT h.have, greatest(0, least(p_wanted, floor(h.have)::int)) AS granted
          FROM (SELECT least(p_burst, p_tokens + p_rate * greatest(0, p_elapsed)) AS have) AS h
         ) AS g
$$;

-- Take up to p_wanted from a subscription's bucket (made full on its first take). The row lock
-- serialises concurrent claims (each reads the bucket the one before committed;
-- clock_timestamp() after the lock, so time never runs back). Claims call it in subscription
-- order, so two claims never wait on each other in a circle.
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
    INSERT INTO subscription_rate_buckets (subscription_id, tokens, updated_at)
    VALUES (p_subscription, p_burst, clock_timestamp())
    ON CONFLICT (subscription_id) DO NOTHING;
    SELECT b.tokens, b.updated_at INTO held_tokens, held_at
    FROM subscription_rate_buckets AS b
    WHERE b.subscription_id = p_subscription
    FOR UPDATE;
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

-- The grant alone (migration 0921's signature, kept for its callers).
CREATE OR REPLACE FUNCTION hookproof_rate_take(
    p_subscription text, p_rate double precision, p_burst double precision, p_wanted int
) RETURNS int
LANGUAGE sql VOLATILE AS $$
    SELECT g.granted FROM hookproof_rate_grant(p_subscription, p_rate, p_burst, p_wanted) AS g
$$;
