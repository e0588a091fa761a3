-- A bulk replay's job row and the deliveries it selected, in the order it replays them
-- (engine/search/replay.py). $1 id, $2 tenant, $3 consumer, $4 digest, $5 the search,
-- $6 rate, $7 who, $8 delivery ids.
WITH job AS (
    INSERT INTO replays (replay_id, tenant_id, consumer_id, state, query_digest, query, total,
                         rate_per_second, requested_by, created_at, updated_at)
    VALUES ($1, $2, $3, 'RUNNING', $4, $5::jsonb, cardinality($8::text[]), $6, $7, now(), now())
    RETURNING replay_id
)
INSERT INTO replay_items (replay_id, seq, delivery_id, status)
SELECT job.replay_id, ids.seq::integer, ids.delivery_id, 'PENDING'
FROM job, unnest($8::text[]) WITH ORDINALITY AS ids (delivery_id, seq)
