-- Current view of each rollout of a signing change, kept by the rollout service in the same
-- transaction as the rollout.* events it appends (rebuildable from the rollout-<id> streams).
-- The dispatcher reads it FOR SHARE while admitting: a stage change and an admission recorded
-- under the stage it ends cannot both win (the same fencing as subscription generations).
CREATE TABLE IF NOT EXISTS rollouts (
    rollout_id  text PRIMARY KEY,
    state       text NOT NULL,
    stage       text NOT NULL,
    percent     integer NOT NULL,
    version     integer NOT NULL,
    view        jsonb NOT NULL,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS rollouts_live ON rollouts (created_at) WHERE state <> 'ROLLED_BACK';
