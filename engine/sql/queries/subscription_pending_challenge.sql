-- A subscription's pending challenge from its projection row (one row by primary key): what the
-- unauthenticated answer route checks an answer against before it reads any stream (issue 46).
SELECT pending_challenge_id, pending_nonce_sha256, pending_expires_at, answered_challenge_id
FROM subscriptions WHERE subscription_id = $1
