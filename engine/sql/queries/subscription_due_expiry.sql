SELECT subscription_id FROM subscriptions
WHERE expires_at IS NOT NULL AND expires_at <= $1 AND state NOT IN ('REVOKED', 'EXPIRED')
