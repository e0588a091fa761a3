-- A per-session staging table for ingest's planned deliveries (filled with COPY, which costs
-- the server a fraction of unnesting 28 arrays); emptied by every statement that reads it.
CREATE TEMP TABLE IF NOT EXISTS ingest_planned_stage (LIKE deliveries INCLUDING DEFAULTS)
ON COMMIT DELETE ROWS
