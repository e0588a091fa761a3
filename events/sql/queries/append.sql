-- Batched append: one row per element of the parallel arrays, inserted (and returned) in array
-- order. A row of an archived stream is not written (the caller sees fewer rows back and
-- refuses the whole batch): the check runs in this statement's snapshot, taken after the table
-- lock an archive anchor holds, so an append never slips in behind a tombstone.
INSERT INTO events (stream_id, category, stream_version, event_id, type, schema_version,
                    data, metadata, prev_hash, hash)
SELECT u.stream_id, u.category, u.stream_version, u.event_id, u.type, u.schema_version,
       u.data, u.metadata, u.prev_hash, u.hash
FROM unnest($1::text[], $2::text[], $3::bigint[], $4::uuid[], $5::text[],
            $6::integer[], $7::bytea[], $8::bytea[], $9::bytea[], $10::bytea[])
    WITH ORDINALITY
    AS u(stream_id, category, stream_version, event_id, type, schema_version, data, metadata,
         prev_hash, hash, ord)
WHERE NOT EXISTS (SELECT 1 FROM archived_streams AS a WHERE a.stream_id = u.stream_id)
ORDER BY u.ord
RETURNING global_position, tx_id::text AS tx_id, recorded_at
