-- Lock the ledger rows of the given deliveries in delivery_id order (the rows are locked as
-- the sorted rows come out), before their streams' events are appended: see
-- engine/delivery/streams.py for the one lock order of delivery streams.
SELECT delivery_id
FROM deliveries
WHERE delivery_id = ANY($1::text[])
ORDER BY delivery_id
FOR UPDATE
