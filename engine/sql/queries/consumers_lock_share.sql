-- Ingest's routing check, inside its group transaction: these consumers' rows, held against a
-- concurrent disable until the group commits (a disable then waits; nothing is planned after).
SELECT stream_id, tenant_id, consumer_id, disabled FROM consumers
WHERE stream_id = ANY($1::text[])
ORDER BY stream_id
FOR SHARE
