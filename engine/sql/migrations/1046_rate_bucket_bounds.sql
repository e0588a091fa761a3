-- Issue 46, item 5: the bucket's arithmetic can no longer fail, whatever a row holds. A
-- `rateLimit.perSecond` of 5e-324 was accepted once, and from then on every claim (every
-- tenant's: the claim is one statement) failed on float8 underflow in `p_rate * elapsed` or
-- overflow in `1 / p_rate`. The API now refuses it (schemas/numbers.py: perSecond
-- 0.001..100000, burst 1..100000); here the same bounds clamp every input (NaN and infinity
-- included: Postgres orders NaN above every number, so least(hi, greatest(lo, NaN)) is hi),
-- so a row written before, or by hand, costs at worst its own subscription's pace, never the
-- claim. The clamped arithmetic stays inside float8: have <= 1e5, wait_s <= 1000 s.
-- engine/delivery/rate_decide.py clamps the same way (tests/delivery/test_rate_decide.py).
CREATE OR REPLACE FUNCTION hookproof_rate_refill(
    p_tokens double precision, p_elapsed double precision, p_rate double precision,
    p_burst double precision, p_wanted int,
    OUT granted int, OUT tokens double precision, OUT wait_s double precision
)
LANGUAGE sql IMMUTABLE AS $$
    SELECT g.granted, g.have - g.granted,
           CASE WHEN g.granted < p_wanted
                THEN greatest(0, (1 - (g.have - g.granted)) / g.rate) END
    FROM (SELECT h.have, h.rate, greatest(0, least(p_wanted, floor(h.have)::int)) AS granted
          FROM (SELECT least(c.burst, c.tokens + c.rate * c.elapsed) AS have, c.rate
                FROM (SELECT b.rate, b.burst,
                             least(b.burst, greatest(0, p_tokens)) AS tokens,
                             least(1e9, greatest(0, p_elapsed)) AS elapsed
                      FROM (SELECT least(1e5, greatest(1e-3, p_rate))::float8 AS rate,
                                   least(1e5, greatest(1, p_burst))::float8 AS burst
                           ) AS b
                     ) AS c
               ) AS h
         ) AS g
$$;

-- A subscription's rate limit as the claim reads it from its stored config (text): read as
-- numeric (any JSON number parses, 1e400 too) and clamped to the API's bounds, so no row's
-- value can fail a claim (dispatch_claim.sql, dispatch_claim_endpoints.sql,
-- dispatch_claim_rate.sql).
CREATE OR REPLACE FUNCTION hookproof_rate_per_second(p_config text) RETURNS double precision
LANGUAGE sql IMMUTABLE AS $$
    SELECT least(1e5, greatest(1e-3, (p_config::jsonb #>> '{rate_limit,per_second}')::numeric))
        ::float8
$$;

CREATE OR REPLACE FUNCTION hookproof_rate_burst(p_config text) RETURNS double precision
LANGUAGE sql IMMUTABLE AS $$
    SELECT least(1e5, greatest(1, (p_config::jsonb #>> '{rate_limit,burst}')::numeric))::float8
$$;

-- Migration 1010's peek, with the bucket's default clamped as the refill clamps it (a burst of
-- 1e308 overflowed its ::int).
CREATE OR REPLACE FUNCTION hookproof_rate_peek(
    p_subscription text, p_rate double precision, p_burst double precision
) RETURNS int
LANGUAGE sql STABLE AS $$
    SELECT floor(coalesce(
        (SELECT (hookproof_rate_refill(b.tokens, extract(epoch FROM now() - b.updated_at)::float8,
                                       p_rate, p_burst, 0)).tokens
         FROM subscription_rate_buckets AS b
         WHERE b.subscription_id = p_subscription),
        least(1e5, greatest(1, p_burst))))::int
$$;

-- Migration 1010's grant, its inputs clamped first (the same bounds): every caller's values
-- are safe, whatever reaches it.
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
    p_rate := least(1e5, greatest(1e-3, p_rate));
    p_burst := least(1e5, greatest(1, p_burst));
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
