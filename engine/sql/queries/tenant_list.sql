-- hookproof tenant list: every tenant, oldest first, with its active API tokens (ids only)
-- and how many subscriptions it has.
SELECT t.tenant_id, t.name, t.created_at,
       coalesce(array_agg(k.token_id ORDER BY k.created_at)
                FILTER (WHERE k.token_id IS NOT NULL), '{}') AS tokens,
       (SELECT count(*) FROM subscriptions s WHERE s.tenant_id = t.tenant_id) AS subscriptions
FROM tenants t
LEFT JOIN api_tokens k ON k.tenant_id = t.tenant_id AND k.revoked_at IS NULL
GROUP BY t.tenant_id, t.name, t.created_at
ORDER BY t.created_at, t.tenant_id
