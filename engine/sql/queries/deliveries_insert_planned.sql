-- Ingest's inline ledger rows: brand-new delivery streams (one delivery.planned each). The
-- rows were COPied into the session's staging table (ingest_stage_create); they move into the
-- ledger in one statement, exactly as deliveries.upsert would write them (a row already present
-- is overwritten the same way), and the staging table is left empty.
WITH moved AS (DELETE FROM pg_temp.ingest_planned_stage RETURNING *)
INSERT INTO deliveries (
-- include: hookproof.projections:deliveries_columns
)
SELECT
-- include: hookproof.projections:deliveries_columns
FROM moved
-- include: hookproof.projections:deliveries_upsert_set
