-- Who hears of an engine key compromise: tenants with live subscriptions that the engine key
-- signs (ed25519), and which of their subscriptions those are. $1: one subscription only
-- (a subscription secret's compromise), or NULL for the engine key.
SELECT tenant_id, array_agg(subscription_id ORDER BY subscription_id) AS subscriptions
FROM subscriptions
WHERE state NOT IN ('REVOKED', 'EXPIRED')
  AND (($1::text IS NULL AND (config::jsonb ->> 'signature_algorithm') = 'ed25519')
       OR subscription_id = $1)
GROUP BY tenant_id
