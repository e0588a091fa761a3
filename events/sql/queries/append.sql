-- Batched append: one row per element of the parallel arrays.
INSERT INTO events (stream_id, category, stream_version, event_id, type, schema_version,
                    data, metadata, prev_hash, hash)
SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::uuid[], $5::text[],
                     $6::integer[], $7::bytea[], $8::bytea[], $9::bytea[], $10::bytea[])
RETURNING global_position, tx_id::text AS tx_id, recorded_at
