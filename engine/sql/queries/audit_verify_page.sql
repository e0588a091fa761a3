-- One keyset page of the whole log in (stream, version) order, for hash-chain verification:
-- every stream's events arrive together and in order, so chains are checked in one pass.
SELECT stream_id, stream_version, event_id, type, schema_version, data, metadata, prev_hash, hash
FROM events
WHERE (stream_id, stream_version) > ($1::text, $2::bigint)
ORDER BY stream_id, stream_version
LIMIT $3
