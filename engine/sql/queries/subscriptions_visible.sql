-- Which of the ids $2 are subscriptions of tenant $1 (and of consumer $3, when set: a portal
-- session sees its own consumer's only), from the projection.
SELECT subscription_id FROM subscriptions
WHERE subscription_id = ANY($2::text[]) AND tenant_id = $1
  AND ($3::text IS NULL OR consumer_id = $3)
