-- As tail.sql, restricted to some categories (rebuilds of projections that need only those).
SELECT global_position, tx_id::text AS tx_id, stream_id, stream_version, event_id, type,
       schema_version, data, metadata, recorded_at, prev_hash, hash
FROM events AS e
WHERE (e.tx_id, e.global_position) > ($1::text::xid8, $2::bigint)
  AND e.tx_id < pg_snapshot_xmin(pg_current_snapshot())
  AND e.category = ANY($4::text[])
ORDER BY e.tx_id, e.global_position
LIMIT $3
