-- Portal sessions belong to the token that started them (issue 32, point 4). `creator` is
-- `token:<tokenId>` (the tenant token's public id, never its secret) or `operator` (`hookproof
-- tenant portal-session`); NULL for sessions started before this migration, whose token was
-- not recorded: revoking any token of their tenant ends them too (they live 24 hours at most).
-- Revoking a token ends its live sessions in the revoking transaction
-- (portal_sessions_end_token.sql); a tenant lists a consumer's live sessions, oldest first
-- (portal_sessions_page.sql), and ends them all (portal_sessions_end_live.sql).
ALTER TABLE portal_sessions ADD COLUMN IF NOT EXISTS creator text;

-- the live sessions of a consumer in list order (replaces 0801's (tenant, consumer) index:
-- the disable's ending reads the same prefix)
CREATE INDEX IF NOT EXISTS portal_sessions_live_page
    ON portal_sessions (tenant_id, consumer_id, created_at, session_id) WHERE ended_at IS NULL;
DROP INDEX IF EXISTS portal_sessions_live;

-- the live sessions of a token (and the unrecorded ones of its tenant)
CREATE INDEX IF NOT EXISTS portal_sessions_live_creator
    ON portal_sessions (tenant_id, creator) WHERE ended_at IS NULL;
