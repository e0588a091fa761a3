-- Cancel a running replay of a tenant: its pending deliveries are never touched (CANCELLED);
-- answers how many, or no row when it was not RUNNING. $1 id, $2 tenant.
WITH job AS (
    UPDATE replays SET state = 'CANCELLED', updated_at = now()
    WHERE replay_id = $1 AND tenant_id = $2 AND state = 'RUNNING'
    RETURNING replay_id
), rest AS (
    UPDATE replay_items AS i SET status = 'CANCELLED'
    FROM job WHERE i.replay_id = job.replay_id AND i.status = 'PENDING'
    RETURNING i.seq
)
SELECT job.replay_id, (SELECT count(*) FROM rest) AS cancelled FROM job
