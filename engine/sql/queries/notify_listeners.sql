-- Of these tenants, those with a live subscription that names the notification topic
-- ($1: the topic and its prefix patterns, never a bare '*').
SELECT DISTINCT tenant_id FROM subscriptions
WHERE state IN ('ACTIVE', 'ROTATING') AND topics && $1::text[] AND tenant_id = ANY($2::text[])
