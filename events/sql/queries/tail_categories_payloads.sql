-- As tail_categories.sql, with the payload, metadata and hashes of the events of types $5 only;
-- of the others just the headers (empty or NULL in their place, so decoding such a row fails
-- loudly), enough to move a checkpoint past them. For a reader that looks at a few types of
-- busy categories (the notifier: five cause types among every delivery event), so the other
-- rows' bytes never leave the server or get built into Python objects.
SELECT global_position, tx_id::text AS tx_id, stream_id, stream_version, event_id, type,
       schema_version,
       CASE WHEN e.type = ANY($5::text[]) THEN data ELSE ''::bytea END AS data,
       CASE WHEN e.type = ANY($5::text[]) THEN metadata ELSE ''::bytea END AS metadata,
       recorded_at,
       CASE WHEN e.type = ANY($5::text[]) THEN prev_hash END AS prev_hash,
       CASE WHEN e.type = ANY($5::text[]) THEN hash ELSE ''::bytea END AS hash
FROM events AS e
WHERE (e.tx_id, e.global_position) > ($1::text::xid8, $2::bigint)
  AND e.tx_id < pg_snapshot_xmin(pg_current_snapshot())
  AND e.category = ANY($4::text[])
ORDER BY e.tx_id, e.global_position
LIMIT $3
