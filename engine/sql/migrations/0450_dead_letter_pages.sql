-- Dead-letter pages (GET /v1/dead-letters?cursor=...): keyset order within a tenant.
CREATE INDEX IF NOT EXISTS deliveries_dead_page ON deliveries (tenant_id, updated_at DESC, delivery_id DESC)
    WHERE state = 'DEAD_LETTER';
