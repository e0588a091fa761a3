-- The deliveries of events re-posted with their own payload (idempotent answers), per tenant.
SELECT d.tenant_id, d.event_id, d.delivery_id, d.subscription_id
FROM deliveries AS d
JOIN unnest($1::text[], $2::text[]) AS k (tenant_id, event_id) USING (tenant_id, event_id)
ORDER BY d.delivery_id
