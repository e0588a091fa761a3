-- Projection rows of archived streams leave with them (their tombstone stays): the ledger rows
-- of archived deliveries and the catalogue rows of archived streams.
WITH gone_deliveries AS (
    DELETE FROM deliveries WHERE delivery_id = ANY($2::text[]) RETURNING 1
), gone_catalogue AS (
    DELETE FROM proj_stream_catalogue WHERE stream_id = ANY($1::text[]) RETURNING 1
)
SELECT (SELECT count(*) FROM gone_deliveries) AS deliveries,
       (SELECT count(*) FROM gone_catalogue) AS catalogue
