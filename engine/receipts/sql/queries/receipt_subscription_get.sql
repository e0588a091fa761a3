-- What a receipt is checked against, in one bounded read: the subscription's current config
-- (its projection row) and its newest 32 distinct receipt keys, newest first (the index holds
-- one row per distinct key: migration 0890).
SELECT s.config,
       ARRAY(SELECT h.receipt_key::text FROM receipt_key_history AS h
             WHERE h.subscription_id = s.subscription_id
             ORDER BY h.stream_version DESC LIMIT 32) AS receipt_keys
FROM subscriptions AS s
WHERE s.subscription_id = $1
