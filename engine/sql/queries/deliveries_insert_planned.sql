-- Ingest's inline ledger rows: brand-new delivery streams (one delivery.planned each). The
-- rows were COPied into the session's staging table (ingest_stage_create); they move into the
-- ledger in one statement, exactly as deliveries.upsert would write them (a row already present
-- is overwritten the same way), and the staging table is left empty.
WITH moved AS (DELETE FROM pg_temp.ingest_planned_stage RETURNING *)
INSERT INTO deliveries (delivery_id, event_id, subscription_id, tenant_id, generation, endpoint, endpoint_digest, payload_digest, topic, owner, receipts, max_attempts, state, attempt, next_attempt_at, lease_owner, lease_until, last_code, last_status, location, dead_letter_reason, application, unknown_since, accepted_at, confirmed_at, stream_version, created_at, updated_at, aggregate_id, aggregate_version, ordering_gap_timeout_s, gap_skipped)
SELECT delivery_id, event_id, subscription_id, tenant_id, generation, endpoint, endpoint_digest, payload_digest, topic, owner, receipts, max_attempts, state, attempt, next_attempt_at, lease_owner, lease_until, last_code, last_status, location, dead_letter_reason, application, unknown_since, accepted_at, confirmed_at, stream_version, created_at, updated_at, aggregate_id, aggregate_version, ordering_gap_timeout_s, gap_skipped FROM moved
-- include: deliveries_planned_upsert
