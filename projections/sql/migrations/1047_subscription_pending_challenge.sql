-- The pending challenge on the subscription's projection row (issue 46): the unauthenticated
-- answer route (`POST /v1/challenges/{id}/response`) checks an answer's challenge id, nonce
-- and expiry against these columns, one row by primary key, before it reads any stream; only
-- an answer that names the pending challenge with its nonce, in time, has the stream folded.
-- `answered_challenge_id`: the challenge answered (passed or failed) last, so that a replay of
-- it says so. Rows written before this migration have NULLs until their stream's next event:
-- an answer to a challenge pending across the upgrade is refused (404, nothing activated, no
-- history read) until `POST .../challenge` issues a new one or `hookproof projections rebuild
-- subscriptions` refolds every row.
ALTER TABLE subscriptions ADD COLUMN IF NOT EXISTS pending_challenge_id text;
ALTER TABLE subscriptions ADD COLUMN IF NOT EXISTS pending_nonce_sha256 text;
ALTER TABLE subscriptions ADD COLUMN IF NOT EXISTS pending_expires_at text;
ALTER TABLE subscriptions ADD COLUMN IF NOT EXISTS answered_challenge_id text;
