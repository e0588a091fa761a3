-- One page of rollouts, oldest first, after the (created_at, rollout_id) of a cursor.
SELECT rollout_id, view::text AS view, created_at
FROM rollouts
WHERE $1::timestamptz IS NULL OR (created_at, rollout_id) > ($1::timestamptz, $2::text)
ORDER BY created_at, rollout_id
LIMIT $3
