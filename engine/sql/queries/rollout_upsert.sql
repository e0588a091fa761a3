-- $1 rollout_id, $2 state, $3 stage, $4 percent, $5 version, $6 view (json text), $7 created_at,
-- $8 updated_at
INSERT INTO rollouts (rollout_id, state, stage, percent, version, view, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8)
ON CONFLICT (rollout_id) DO UPDATE
SET state = EXCLUDED.state, stage = EXCLUDED.stage, percent = EXCLUDED.percent,
    version = EXCLUDED.version, view = EXCLUDED.view, updated_at = EXCLUDED.updated_at
