-- Hot and archived events in one temporary table named like the log (shadows it in this
-- session's search path); dropped at commit.
CREATE TEMP TABLE events ON COMMIT DROP AS
SELECT global_position, tx_id::text AS tx_id, stream_id, category, stream_version, event_id,
       type, schema_version, data, metadata, recorded_at, prev_hash, hash
FROM public.events
