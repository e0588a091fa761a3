-- The owners of the deliveries a segment takes (from the ledger, before its rows are removed).
INSERT INTO archived_delivery_owners (delivery_id, tenant_id)
SELECT delivery_id, tenant_id FROM deliveries WHERE delivery_id = ANY($1::text[])
ON CONFLICT (delivery_id) DO NOTHING
