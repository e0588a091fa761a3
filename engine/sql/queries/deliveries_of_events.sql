-- The deliveries of events re-posted with their own payload (idempotent answers), per tenant,
-- through the delivery log's keys (delivery_log_event, migration 1000); each ledger row is
-- read to be sure it is there (a key is written with its row, removed with it).
SELECT k.tenant_id, k.event_id, k.delivery_id, k.subscription_id
FROM delivery_log AS k
JOIN unnest($1::text[], $2::text[]) AS e (tenant_id, event_id) USING (tenant_id, event_id)
JOIN deliveries AS d ON d.delivery_id = k.delivery_id
ORDER BY k.delivery_id
