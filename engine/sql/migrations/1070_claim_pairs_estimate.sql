-- The (endpoint, subscription, room) pairs a claim per pair names (dispatch_claim_endpoints.sql)
-- as a set the planner estimates at a few rows, whatever the arrays hold. Read through `unnest`
-- of the statement's parameters, a generic plan was costed at ten pairs against a custom
-- plan's one or two, so Postgres never chose it (pg_prepared_statements: 0 generic, every
-- execution custom) and planned that statement again on every claim while any endpoint was
-- full or any breaker open: 0.8 ms of its 1.0-1.9 (bench/HISTORY.md "Session 16: the claim
-- beside hung destinations"). plpgsql is never inlined, so its ROWS is the estimate, in
-- custom and generic plans alike; the generic plan reads no backlog either
-- (tests/delivery/test_claim_room.py runs it under force_generic_plan).
CREATE OR REPLACE FUNCTION hookproof_claim_pairs(
    p_endpoints text[], p_subscriptions text[], p_rooms int[]
) RETURNS TABLE (endpoint_digest text, subscription_id text, n int)
LANGUAGE plpgsql IMMUTABLE ROWS 4 AS $$
BEGIN
    RETURN QUERY SELECT u.e, u.s, u.n FROM unnest(p_endpoints, p_subscriptions, p_rooms) AS u(e, s, n);
END
$$;
