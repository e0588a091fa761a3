-- Every committed event after (tx_id, position), without the xmin fence. Only for the swap of
-- an inline projection: it holds the live table's ACCESS EXCLUSIVE lock, so every transaction
-- that wrote rows into it has committed; a transaction that commits later writes its own rows
-- (inline) into the swapped-in table. $3: only these categories (NULL: all).
SELECT global_position, tx_id::text AS tx_id, stream_id, stream_version, event_id, type,
       schema_version, data, metadata, recorded_at, prev_hash, hash
FROM events AS e
WHERE (e.tx_id, e.global_position) > ($1::text::xid8, $2::bigint)
  AND ($3::text[] IS NULL OR e.category = ANY($3::text[]))
ORDER BY e.tx_id, e.global_position
