-- What the closed-stream rule needs about each delivery (from the ledger).
SELECT delivery_id, state, receipts, updated_at FROM deliveries WHERE delivery_id = ANY($1::text[])
