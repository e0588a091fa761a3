-- Rollouts that still decide what deliveries are signed with, held FOR SHARE by the admitting
-- transaction (a stage change waits for it, and it sees a committed stage change).
SELECT rollout_id, version, view::text AS view
FROM rollouts
WHERE state <> 'ROLLED_BACK'
ORDER BY created_at
FOR SHARE
