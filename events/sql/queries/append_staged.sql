-- append.sql for rows COPied into the session's append_stage: the same insert, the same
-- archived-stream refusal and the same order of the rows returned; the stage is left empty.
WITH u AS (DELETE FROM pg_temp.append_stage RETURNING *)
INSERT INTO events (stream_id, category, stream_version, event_id, type, schema_version,
                    data, metadata, prev_hash, hash)
SELECT u.stream_id, u.category, u.stream_version, u.event_id, u.type, u.schema_version,
       u.data, u.metadata, u.prev_hash, u.hash
FROM u
WHERE NOT EXISTS (SELECT 1 FROM archived_streams AS a WHERE a.stream_id = u.stream_id)
ORDER BY u.ord
RETURNING global_position, tx_id::text AS tx_id, recorded_at
