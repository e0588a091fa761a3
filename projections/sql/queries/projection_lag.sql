-- How many committed events (of categories $5; NULL: all) a projection whose checkpoint is
-- ($1 tx_id, $2 position) has still to apply up to the head ($3 tx_id, $4 position).
SELECT count(*) FROM events AS e
WHERE (e.tx_id, e.global_position) > ($1::text::xid8, $2::bigint)
  AND (e.tx_id, e.global_position) <= ($3::text::xid8, $4::bigint)
  AND ($5::text[] IS NULL OR e.category = ANY($5::text[]))
