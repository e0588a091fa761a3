INSERT INTO {table} (subscription_id, tenant_id, generation, state, endpoint, endpoint_digest,
                     topics, event_versions, config, stream_version, pinned_addresses,
                     spki_sha256, proven_key_id, expires_at, created_at, updated_at, consumer_id,
                     pending_challenge_id, pending_nonce_sha256, pending_expires_at,
                     answered_challenge_id, filters_key)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19,
        $20, $21, $22)
ON CONFLICT (subscription_id) DO UPDATE SET
    generation = EXCLUDED.generation, state = EXCLUDED.state, endpoint = EXCLUDED.endpoint,
    endpoint_digest = EXCLUDED.endpoint_digest, topics = EXCLUDED.topics,
    event_versions = EXCLUDED.event_versions, config = EXCLUDED.config,
    stream_version = EXCLUDED.stream_version, pinned_addresses = EXCLUDED.pinned_addresses,
    spki_sha256 = EXCLUDED.spki_sha256, proven_key_id = EXCLUDED.proven_key_id,
    expires_at = EXCLUDED.expires_at, updated_at = EXCLUDED.updated_at,
    consumer_id = EXCLUDED.consumer_id, pending_challenge_id = EXCLUDED.pending_challenge_id,
    pending_nonce_sha256 = EXCLUDED.pending_nonce_sha256,
    pending_expires_at = EXCLUDED.pending_expires_at,
    answered_challenge_id = EXCLUDED.answered_challenge_id,
    filters_key = EXCLUDED.filters_key
