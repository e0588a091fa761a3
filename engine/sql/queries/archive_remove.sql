-- One removal batch in one statement: the log rows through the one function allowed to
-- delete, and the projection rows of those streams (the ledger rows of archived deliveries
-- with their delivery-log keys, the catalogue rows); their tombstones stay.
WITH removed AS (
    SELECT hookproof_archive_remove($1, $2::text[]) AS n
), gone_deliveries AS (
    DELETE FROM deliveries WHERE delivery_id = ANY($3::text[])
    RETURNING tenant_id, created_at, delivery_id
), gone_log_keys AS (
    DELETE FROM delivery_log AS k
    USING gone_deliveries AS g
    WHERE k.tenant_id = g.tenant_id AND k.created_at = g.created_at
      AND k.delivery_id = g.delivery_id
    RETURNING 1
), gone_catalogue AS (
    DELETE FROM proj_stream_catalogue WHERE stream_id = ANY($2::text[]) RETURNING 1
)
SELECT (SELECT n FROM removed) AS events,
       (SELECT count(*) FROM gone_deliveries) AS deliveries,
       (SELECT count(*) FROM gone_catalogue) AS catalogue
