-- Ingest's inline ledger rows: brand-new delivery streams (one delivery.planned each). The
-- rows were COPied into the session's staging table (ingest_stage_create); they move into the
-- ledger in one statement, exactly as deliveries.upsert would write them (a row already present
-- is overwritten the same way), and the staging table is left empty.
WITH moved AS (DELETE FROM pg_temp.ingest_planned_stage RETURNING *)
INSERT INTO deliveries (delivery_id, event_id, subscription_id, tenant_id, generation, endpoint, endpoint_digest, payload_digest, topic, owner, receipts, max_attempts, state, attempt, next_attempt_at, lease_owner, lease_until, last_code, last_status, location, dead_letter_reason, application, unknown_since, accepted_at, confirmed_at, stream_version, created_at, updated_at, aggregate_id, aggregate_version, ordering_gap_timeout_s, gap_skipped)
SELECT delivery_id, event_id, subscription_id, tenant_id, generation, endpoint, endpoint_digest, payload_digest, topic, owner, receipts, max_attempts, state, attempt, next_attempt_at, lease_owner, lease_until, last_code, last_status, location, dead_letter_reason, application, unknown_since, accepted_at, confirmed_at, stream_version, created_at, updated_at, aggregate_id, aggregate_version, ordering_gap_timeout_s, gap_skipped FROM moved
ON CONFLICT (delivery_id) DO UPDATE SET
    event_id = EXCLUDED.event_id,
    subscription_id = EXCLUDED.subscription_id,
    tenant_id = EXCLUDED.tenant_id,
    generation = EXCLUDED.generation,
    endpoint = EXCLUDED.endpoint,
    endpoint_digest = EXCLUDED.endpoint_digest,
    payload_digest = EXCLUDED.payload_digest,
    topic = EXCLUDED.topic,
    owner = EXCLUDED.owner,
    receipts = EXCLUDED.receipts,
    max_attempts = EXCLUDED.max_attempts,
    state = EXCLUDED.state,
    attempt = EXCLUDED.attempt,
    next_attempt_at = EXCLUDED.next_attempt_at,
    lease_owner = EXCLUDED.lease_owner,
    lease_until = EXCLUDED.lease_until,
    last_code = EXCLUDED.last_code,
    last_status = EXCLUDED.last_status,
    location = EXCLUDED.location,
    dead_letter_reason = EXCLUDED.dead_letter_reason,
    application = EXCLUDED.application,
    unknown_since = EXCLUDED.unknown_since,
    accepted_at = EXCLUDED.accepted_at,
    confirmed_at = EXCLUDED.confirmed_at,
    stream_version = EXCLUDED.stream_version,
    created_at = EXCLUDED.created_at,
    updated_at = EXCLUDED.updated_at,
    aggregate_id = EXCLUDED.aggregate_id,
    aggregate_version = EXCLUDED.aggregate_version,
    ordering_gap_timeout_s = EXCLUDED.ordering_gap_timeout_s,
    gap_skipped = EXCLUDED.gap_skipped
