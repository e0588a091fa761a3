-- GET /v1/rollouts is paged by (created_at, rollout_id): each page is one index range.
CREATE INDEX IF NOT EXISTS rollouts_page ON rollouts (created_at, rollout_id);
