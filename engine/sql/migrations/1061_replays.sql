-- Bulk replay as a job (issue 54 item 2, engine/search/replay.py). The job's facts are events
-- in its stream `replay-<id>` (replay.started: the query's digest, the count, who asked;
-- replay.cancelled; replay.finished); these two tables are its working state: the job row
-- (progress for GET /v1/replays/{id}) and the deliveries it selected when it started, in
-- the order it replays them, each with what became of it.
CREATE TABLE IF NOT EXISTS replays (
    replay_id text PRIMARY KEY,
    tenant_id text NOT NULL,
    consumer_id text,
    state text NOT NULL,
    query_digest text NOT NULL,
    query jsonb NOT NULL,
    total integer NOT NULL,
    rate_per_second double precision NOT NULL,
    requested_by text NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS replays_tenant ON replays (tenant_id, created_at);

CREATE TABLE IF NOT EXISTS replay_items (
    replay_id text NOT NULL,
    seq integer NOT NULL,
    delivery_id text NOT NULL,
    -- PENDING, REPLAYED, FAILED (the delivery could not be replayed: `reason`), CANCELLED
    status text NOT NULL,
    reason text,
    done_at timestamptz,
    PRIMARY KEY (replay_id, seq)
);
