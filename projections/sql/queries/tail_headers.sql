-- tail.sql (events' named queries) with the row headers only: no payload, metadata or hashes
-- leave the server (empty or NULL in their place, so decoding such a row fails loudly). For
-- projections that fold positions, versions and times alone (the stream catalogue).
SELECT global_position, tx_id::text AS tx_id, stream_id, stream_version, event_id, type,
       schema_version, ''::bytea AS data, ''::bytea AS metadata, recorded_at,
       NULL::bytea AS prev_hash, ''::bytea AS hash
FROM events AS e
WHERE (e.tx_id, e.global_position) > ($1::text::xid8, $2::bigint)
  AND e.tx_id < pg_snapshot_xmin(pg_current_snapshot())
ORDER BY e.tx_id, e.global_position
LIMIT $3
