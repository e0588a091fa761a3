-- A running replay that reached every delivery is DONE; answers its counts (no row: it was
-- cancelled meanwhile). $1 id.
WITH job AS (
    UPDATE replays SET state = 'DONE', updated_at = now()
    WHERE replay_id = $1 AND state = 'RUNNING'
      AND NOT EXISTS (SELECT 1 FROM replay_items
                      WHERE replay_id = $1 AND status IN ('PENDING', 'CLAIMED'))
    RETURNING replay_id
)
SELECT job.replay_id,
       (SELECT count(*) FROM replay_items WHERE replay_id = $1 AND status = 'REPLAYED') AS replayed,
       (SELECT count(*) FROM replay_items WHERE replay_id = $1 AND status = 'FAILED') AS failed
FROM job
