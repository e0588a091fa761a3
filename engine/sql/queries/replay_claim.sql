-- The next delivery of a running replay, claimed (PENDING -> CLAIMED); none when the replay
-- is no longer RUNNING (cancelled: replay_cancel.sql takes the same row lock first, so a
-- cancel and a claim never interleave) or nothing is pending. $1 id.
WITH job AS (
    SELECT replay_id FROM replays WHERE replay_id = $1 AND state = 'RUNNING' FOR SHARE
), next AS (
    SELECT i.seq FROM replay_items AS i, job
    WHERE i.replay_id = job.replay_id AND i.status = 'PENDING'
    ORDER BY i.seq LIMIT 1
)
UPDATE replay_items AS i SET status = 'CLAIMED'
FROM next
WHERE i.replay_id = $1 AND i.seq = next.seq
RETURNING i.seq, i.delivery_id
