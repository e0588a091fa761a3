-- The delivery log's two slow combinations at 1,000,000 deliveries (issue 39, bench/HISTORY.md
-- "Session 10: portal and console"):
--
-- 1. All five filters at once: the planner multiplied the filters' selectivities as if they
--    were independent, expected 19 rows and read every dead letter of the tenant through
--    deliveries_dead, then sorted (71 ms). They are not independent (an endpoint takes some
--    event types; a dead letter was never accepted): multivariate MCV statistics over the
--    filtered columns give the planner their joint frequencies, and it walks the page's
--    index instead. Statistics cost nothing on writes (ANALYZE keeps them).
CREATE STATISTICS IF NOT EXISTS deliveries_log_filters (mcv)
    ON subscription_id, topic, state, (accepted_at IS NULL) FROM deliveries;
-- 2. A combination that no row matches (state=DEAD_LETTER + evidence=ENDPOINT_ACCEPTED)
--    walked every dead letter of the tenant and fetched each row from the table to check its
--    evidence (40-129 ms). The state index now carries the other filtered columns, and the
--    log's queries take the page's keys first (deliveries_log*.sql), so that walk reads the
--    index alone (an index-only scan). Its entries grow by the four columns (about 60 bytes):
--    the ledger's writes already write every index entry (no update of it is HOT).
DROP INDEX IF EXISTS deliveries_log_state;
CREATE INDEX IF NOT EXISTS deliveries_log_state
    ON deliveries (tenant_id, state, created_at, delivery_id)
    INCLUDE (subscription_id, topic, accepted_at, application);
ANALYZE deliveries;
