-- Subscriptions a rollout may cover (not REVOKED/EXPIRED): id, profile, algorithm.
-- $1: the listed ids, or NULL for all.
SELECT subscription_id,
       coalesce(config::jsonb ->> 'signature_profile', 'hookproof.sig.v1') AS profile,
       config::jsonb ->> 'signature_algorithm' AS algorithm
FROM subscriptions
WHERE state NOT IN ('REVOKED', 'EXPIRED')
  AND ($1::text[] IS NULL OR subscription_id = ANY($1::text[]))
