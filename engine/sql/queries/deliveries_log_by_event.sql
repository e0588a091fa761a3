-- One page of the delivery log (GET /v1/deliveries), newest first, keyset on
-- (created_at, delivery_id). Every deliveries_log*.sql file includes the same filters after a
-- leading filter of its own, a plain equality, so its index is the one the plan walks even as a
-- generic plan of the prepared statement. $1 tenant, $2 subscription, $3 topic, $4 state,
-- $5 evidence, $6 since, $7 until, $8 event id, $9 delivery id, $10 consumer (a portal
-- session), $11/$12 the cursor, $13 limit.
-- Leading filter: event_id (delivery_log_event index: an event's deliveries are few).
-- The page walks the log's keys (delivery_log, written once per delivery: migration 1000) in
-- the page's order and checks the ledger row of each (state, evidence) through its primary key.
SELECT d.* FROM delivery_log AS k
JOIN deliveries AS d ON d.delivery_id = k.delivery_id
WHERE k.tenant_id = $1
  AND k.event_id = $8  -- the leading filter
-- include: deliveries_log_key_filters
