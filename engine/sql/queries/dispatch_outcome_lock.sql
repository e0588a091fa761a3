-- deliveries_lock for the dispatcher's outcome appends: the ledger rows of the given
-- deliveries locked in delivery_id order (engine/delivery/streams.py: the one lock order),
-- and the transaction tagged 'dispatch' for the events channel (migration 0710: the other
-- dispatchers are not woken by an outcome).
SELECT delivery_id, set_config('hookproof.notify', 'dispatch', true) AS tag
FROM deliveries
WHERE delivery_id = ANY($1::text[])
ORDER BY delivery_id
FOR UPDATE
