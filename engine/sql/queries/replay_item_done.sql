-- What became of a claimed delivery of a replay: REPLAYED or FAILED (with a reason code).
-- $1 id, $2 seq, $3 status, $4 reason.
UPDATE replay_items SET status = $3, reason = $4, done_at = clock_timestamp()
WHERE replay_id = $1 AND seq = $2 AND status = 'CLAIMED'
