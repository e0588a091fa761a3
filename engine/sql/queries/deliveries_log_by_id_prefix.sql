-- One page of the delivery log (GET /v1/deliveries), newest first, keyset on
-- (created_at, delivery_id). Every deliveries_log*.sql file includes the same filters after a
-- leading filter of its own, a plain equality, so its index is the one the plan walks even as a
-- generic plan of the prepared statement. $1 tenant, $2 subscription, $3 topic, $4 state,
-- $5 evidence, $6 since, $7 until, $8 event id, $9 delivery id, $10 consumer (a portal
-- session), $11/$12 the cursor, $13 limit, $14/$15 the
-- start of a delivery id / of an event id.
-- Leading filter: the start of a delivery id (console search), a range on the ledger's primary
-- key: every id that starts with $14 sorts from $14 up to $14 followed by the last code point
-- (starts_with in the filters keeps exactly those, whatever the collation).
SELECT d.* FROM deliveries AS d
JOIN (
SELECT delivery_id FROM deliveries
WHERE tenant_id = $1
  AND delivery_id >= $14 AND delivery_id < $14 || chr(1114111)  -- the leading filter
-- include: deliveries_log_filters
) AS page USING (delivery_id)
ORDER BY d.created_at DESC, d.delivery_id DESC
