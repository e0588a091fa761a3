-- The tenant of every archived delivery, recorded in the archive's anchor transaction (the
-- ledger rows still exist then), so GET /v1/deliveries/{id} decides "not yours" before it
-- touches a segment: another tenant's id is a 404 whatever the segment's state. Deliveries
-- archived before this migration have no row here (their owner is only inside the segment).
CREATE TABLE IF NOT EXISTS archived_delivery_owners (
    delivery_id text PRIMARY KEY,
    tenant_id text NOT NULL
);
