-- Where the delivery log's keys (delivery_log, migration 1000) and the ledger disagree, up to
-- $1 lines: a ledger row without its key (the log would never show it), a key whose columns
-- differ from its ledger row's, a key without a ledger row (shown by no read: they all join
-- the ledger). `projections rebuild --verify` reports them beside the ledger's differences.
SELECT line FROM (
    SELECT 'missing in delivery_log: delivery_id=' || d.delivery_id AS line
    FROM deliveries AS d
    WHERE NOT EXISTS (
        SELECT 1 FROM delivery_log AS k
        WHERE k.tenant_id = d.tenant_id AND k.created_at = d.created_at
          AND k.delivery_id = d.delivery_id
          AND k.subscription_id = d.subscription_id AND k.topic = d.topic
          AND k.event_id = d.event_id)
    UNION ALL
    SELECT 'extra in delivery_log: delivery_id=' || k.delivery_id
    FROM delivery_log AS k
    WHERE NOT EXISTS (
        SELECT 1 FROM deliveries AS d
        WHERE k.tenant_id = d.tenant_id AND k.created_at = d.created_at
          AND k.delivery_id = d.delivery_id
          AND k.subscription_id = d.subscription_id AND k.topic = d.topic
          AND k.event_id = d.event_id)
) AS drift
ORDER BY line
LIMIT $1
