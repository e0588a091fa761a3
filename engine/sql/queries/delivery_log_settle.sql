-- After a rebuild of the ledger: the delivery log's keys are exactly the ledger's. The fresh
-- ledger's COPY wrote the keys of its rows (the trigger of migration 1000); keys of rows the
-- rebuilt ledger no longer holds, or that differ from them, go.
DELETE FROM delivery_log AS k
WHERE NOT EXISTS (
    SELECT 1 FROM deliveries AS d
    WHERE k.tenant_id = d.tenant_id AND k.created_at = d.created_at
      AND k.delivery_id = d.delivery_id
      AND k.subscription_id = d.subscription_id AND k.topic = d.topic
          AND k.event_id = d.event_id)
