-- Who hears of a paused rollout: tenants with live subscriptions in it ($1 NULL: all).
SELECT tenant_id, array_agg(subscription_id ORDER BY subscription_id) AS subscriptions
FROM subscriptions
WHERE state NOT IN ('REVOKED', 'EXPIRED')
  AND ($1::text[] IS NULL OR subscription_id = ANY($1::text[]))
GROUP BY tenant_id
