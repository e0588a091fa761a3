-- Ordered delivery per aggregate: what the claim needs to admit version n+1 only after n.
ALTER TABLE deliveries ADD COLUMN IF NOT EXISTS aggregate_id text;
ALTER TABLE deliveries ADD COLUMN IF NOT EXISTS aggregate_version bigint;
ALTER TABLE deliveries ADD COLUMN IF NOT EXISTS ordering_gap_timeout_s double precision;
ALTER TABLE deliveries ADD COLUMN IF NOT EXISTS gap_skipped boolean NOT NULL DEFAULT false;
CREATE INDEX IF NOT EXISTS deliveries_aggregate ON deliveries
    (subscription_id, aggregate_id, aggregate_version)
    WHERE ordering_gap_timeout_s IS NOT NULL;

-- The claim's ordering test, as functions: called only for ordered first attempts, so an
-- unordered claim plans and runs no sub-query for it. STABLE: they read the claim's snapshot.
CREATE OR REPLACE FUNCTION hookproof_ordering_below(sub text, agg text, ver bigint)
RETURNS bigint LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN (SELECT max(p.aggregate_version) FROM deliveries p
            WHERE p.subscription_id = sub AND p.aggregate_id = agg
              AND p.ordering_gap_timeout_s IS NOT NULL AND p.aggregate_version < ver);
END;
$$;

CREATE OR REPLACE FUNCTION hookproof_ordering_ready(
    sub text, agg text, ver bigint, skipped boolean, planned timestamptz, timeout_s float8)
RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
    -- every earlier version of the aggregate is accepted or later (a dead letter holds it)
    IF EXISTS (SELECT 1 FROM deliveries p
               WHERE p.subscription_id = sub AND p.aggregate_id = agg
                 AND p.ordering_gap_timeout_s IS NOT NULL AND p.aggregate_version < ver
                 AND p.state NOT IN
                     ('ENDPOINT_ACCEPTED', 'APPLICATION_CONFIRMED', 'SKIPPED', 'QUARANTINED')) THEN
        RETURN false;
    END IF;
    -- and the version before it is known, or there is none, or the gap has waited enough
    RETURN skipped OR ver <= 1 OR planned + make_interval(secs => timeout_s) <= now()
        OR EXISTS (SELECT 1 FROM deliveries p
                   WHERE p.subscription_id = sub AND p.aggregate_id = agg
                     AND p.ordering_gap_timeout_s IS NOT NULL AND p.aggregate_version = ver - 1);
END;
$$;
