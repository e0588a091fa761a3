-- One page of the delivery log (GET /v1/deliveries), newest first, keyset on
-- (created_at, delivery_id). Every deliveries_log*.sql file includes the same filters after a
-- leading filter of its own, a plain equality, so its index is the one the plan walks even as a
-- generic plan of the prepared statement. $1 tenant, $2 subscription, $3 topic, $4 state,
-- $5 evidence, $6 since, $7 until, $8 event id, $9 delivery id, $10 consumer (a portal
-- session), $11/$12 the cursor, $13 limit, $14/$15 the
-- start of a delivery id / of an event id.
-- Leading filter: the start of an event id (console search), a range on delivery_log_event
-- (tenant, event id): every id that starts with $15 sorts from $15 up to $15 followed by the
-- last code point (starts_with in the filters keeps exactly those, whatever the collation).
SELECT d.* FROM delivery_log AS k
JOIN deliveries AS d ON d.delivery_id = k.delivery_id
WHERE k.tenant_id = $1
  AND k.event_id >= $15 AND k.event_id < $15 || chr(1114111)  -- the leading filter
-- include: deliveries_log_key_filters
