SELECT rollout_id, state, stage, percent, version, view::text AS view
FROM rollouts
ORDER BY created_at
