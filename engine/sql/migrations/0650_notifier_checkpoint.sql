-- The notifier (operator notifications) starts at the head of the log when it is installed:
-- causes recorded before the feature existed are not announced after the fact.
INSERT INTO projection_checkpoints (name, tx_id, global_position)
SELECT 'notifier', tx_id, global_position FROM events
ORDER BY tx_id DESC, global_position DESC
LIMIT 1
ON CONFLICT (name) DO NOTHING;
