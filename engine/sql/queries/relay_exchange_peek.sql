-- Whether exchange $1 has its report yet (the waiter's check beside the notification).
SELECT reported_at IS NOT NULL AS reported FROM relay_exchanges WHERE exchange_id = $1
