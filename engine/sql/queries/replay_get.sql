-- One replay of a tenant with its progress by outcome (CLAIMED: being replayed now, shown as
-- replayed). $1 id, $2 tenant.
SELECT r.*,
       count(*) FILTER (WHERE i.status IN ('REPLAYED', 'CLAIMED')) AS replayed,
       count(*) FILTER (WHERE i.status = 'FAILED') AS failed,
       count(*) FILTER (WHERE i.status = 'CANCELLED') AS cancelled,
       count(*) FILTER (WHERE i.status = 'PENDING') AS pending
FROM replays AS r
LEFT JOIN replay_items AS i ON i.replay_id = r.replay_id
WHERE r.replay_id = $1 AND r.tenant_id = $2
GROUP BY r.replay_id
