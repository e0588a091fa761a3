-- $2 idle subscriptions of the tenant of subscription $1: copies of its projection row with
-- ids, endpoints (so endpoint digests) and topics of their own. Their topic ('idle.<n>') no
-- event of the test has, and no delivery is ever planned for them: endpoints with nothing due.
INSERT INTO subscriptions (subscription_id, tenant_id, generation, state, endpoint,
                           endpoint_digest, topics, event_versions, config, stream_version,
                           pinned_addresses, spki_sha256, proven_key_id, expires_at,
                           created_at, updated_at, consumer_id)
SELECT 'sub_e' || lpad(to_hex(n), 23, '0'), s.tenant_id, s.generation, s.state,
       s.endpoint || '/idle-' || n, md5('idle-' || n), ARRAY['idle.' || n], s.event_versions,
       s.config, s.stream_version, s.pinned_addresses, s.spki_sha256, s.proven_key_id,
       s.expires_at, s.created_at, s.updated_at, s.consumer_id
FROM subscriptions AS s, generate_series(1, $2::int) AS n
WHERE s.subscription_id = $1
