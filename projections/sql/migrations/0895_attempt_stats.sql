-- Projection: attempts per subscription, hour (UTC) and outcome, kept by the projector in
-- batches (projections/attempt_stats.py); `GET /v1/subscriptions/{id}/attempt-stats` reads at
-- most 25 hours x a few outcomes of it, however many deliveries those hours had. Logged: a
-- request path reads it. Only buckets with attempts are rows (a count that reaches zero, when
-- a failure turns out to be the dead letter's or the archive takes its deliveries, is deleted),
-- so a rebuild from the log gives the same rows whatever the pages were. Its counts change in
-- place once per projector pass: room on each page keeps those updates HOT.
CREATE TABLE IF NOT EXISTS proj_attempt_stats (
    subscription_id text NOT NULL,
    hour timestamptz NOT NULL,
    outcome text NOT NULL,
    tenant_id text NOT NULL,
    attempts bigint NOT NULL,
    PRIMARY KEY (subscription_id, hour, outcome)
) WITH (fillfactor = 70);
