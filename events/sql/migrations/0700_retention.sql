-- Retention: closed streams leave the hot log for signed, anchored segment files.
--
-- archive_segments: one row per anchored segment, inserted in the same transaction as its
-- archive.segment_written anchor event (so a row here means "anchored"). archived_streams: the
-- tombstone of every archived stream (where its events went, its final version and hash), so
-- expected versions stay exact after the rows are gone and readers can find the archive.
CREATE TABLE IF NOT EXISTS archive_segments (
    segment_id text PRIMARY KEY,
    file_name text NOT NULL,
    file_sha256 text NOT NULL,
    file_size bigint NOT NULL,
    manifest_digest text NOT NULL,
    key_id text NOT NULL,
    streams integer NOT NULL,
    events bigint NOT NULL,
    first_recorded_at timestamptz NOT NULL,
    last_recorded_at timestamptz NOT NULL,
    cutoff timestamptz NOT NULL,
    anchor_position bigint NOT NULL,
    anchored_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    -- set once every row of the segment has left the hot tables
    completed_at timestamptz
);

CREATE TABLE IF NOT EXISTS archived_streams (
    stream_id text PRIMARY KEY,
    segment_id text NOT NULL REFERENCES archive_segments (segment_id),
    category text NOT NULL,
    final_version bigint NOT NULL,
    final_hash bytea NOT NULL,
    events integer NOT NULL,
    -- the gzip member of the segment file holding this stream's lines
    member_offset bigint NOT NULL,
    member_length bigint NOT NULL,
    last_recorded_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS archived_streams_segment ON archived_streams (segment_id);

-- Tombstones and segment records are evidence too: never deleted, only completed_at moves.
CREATE OR REPLACE FUNCTION hookproof_archive_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND TG_TABLE_NAME = 'archive_segments'
       AND (to_jsonb(NEW) - 'completed_at') = (to_jsonb(OLD) - 'completed_at') THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'insufficient_privilege', HINT = 'hookproof_append_only';
END;
$$;
DROP TRIGGER IF EXISTS archive_segments_refuse_change ON archive_segments;
CREATE TRIGGER archive_segments_refuse_change BEFORE UPDATE OR DELETE ON archive_segments
    FOR EACH ROW EXECUTE FUNCTION hookproof_archive_refuse_change();
DROP TRIGGER IF EXISTS archive_segments_refuse_truncate ON archive_segments;
CREATE TRIGGER archive_segments_refuse_truncate BEFORE TRUNCATE ON archive_segments
    FOR EACH STATEMENT EXECUTE FUNCTION hookproof_archive_refuse_change();
DROP TRIGGER IF EXISTS archived_streams_refuse_change ON archived_streams;
CREATE TRIGGER archived_streams_refuse_change BEFORE UPDATE OR DELETE ON archived_streams
    FOR EACH ROW EXECUTE FUNCTION hookproof_archive_refuse_change();
DROP TRIGGER IF EXISTS archived_streams_refuse_truncate ON archived_streams;
CREATE TRIGGER archived_streams_refuse_truncate BEFORE TRUNCATE ON archived_streams
    FOR EACH STATEMENT EXECUTE FUNCTION hookproof_archive_refuse_change();

-- The append-only guard of events keeps refusing UPDATE, DELETE and TRUNCATE, with one
-- exception: a DELETE made by hookproof_archive_remove (below) in this very transaction, of a
-- row its anchored segment covers. Every other DELETE is refused as before.
CREATE OR REPLACE FUNCTION hookproof_events_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    grant_ text;
BEGIN
    IF TG_OP = 'DELETE' THEN
        grant_ := current_setting('hookproof.archive_remove', true);
        IF grant_ IS NOT NULL AND grant_ <> ''
           AND split_part(grant_, '/', 2) = pg_current_xact_id()::text
           AND EXISTS (
               SELECT 1 FROM archived_streams AS a
               WHERE a.stream_id = OLD.stream_id
                 AND a.segment_id = split_part(grant_, '/', 1)
                 AND OLD.stream_version <= a.final_version
           ) THEN
            RETURN OLD;
        END IF;
    END IF;
    RAISE EXCEPTION 'events is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege', HINT = 'hookproof_append_only';
END;
$$;

-- The one way rows leave the log: the given streams of one anchored segment. Refuses a segment
-- without an anchor event carrying its manifest digest, and any stream the segment's manifest
-- does not cover. Returns the number of events removed (0 when already gone: idempotent).
CREATE OR REPLACE FUNCTION hookproof_archive_remove(p_segment text, p_streams text[])
RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    seg archive_segments%ROWTYPE;
    anchor_ok boolean;
    uncovered text;
    removed bigint;
BEGIN
    SELECT * INTO seg FROM archive_segments WHERE segment_id = p_segment;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'segment % has no anchored manifest: removal refused', p_segment
            USING ERRCODE = 'insufficient_privilege', HINT = 'hookproof_archive_unanchored';
    END IF;
    SELECT e.type = 'archive.segment_written'
           AND convert_from(e.data, 'UTF8')::jsonb ->> 'segment_id' = seg.segment_id
           AND convert_from(e.data, 'UTF8')::jsonb ->> 'manifest_digest' = seg.manifest_digest
      INTO anchor_ok
      FROM events AS e WHERE e.global_position = seg.anchor_position;
    IF anchor_ok IS NOT TRUE THEN
        RAISE EXCEPTION 'segment % has no anchor event carrying its manifest digest', p_segment
            USING ERRCODE = 'insufficient_privilege', HINT = 'hookproof_archive_unanchored';
    END IF;
    SELECT s INTO uncovered FROM unnest(p_streams) AS s
    WHERE NOT EXISTS (
        SELECT 1 FROM archived_streams AS a WHERE a.stream_id = s AND a.segment_id = p_segment
    )
    LIMIT 1;
    IF uncovered IS NOT NULL THEN
        RAISE EXCEPTION 'stream % is not covered by the manifest of segment %: removal refused',
            uncovered, p_segment
            USING ERRCODE = 'insufficient_privilege', HINT = 'hookproof_archive_uncovered';
    END IF;
    PERFORM set_config('hookproof.archive_remove',
                       p_segment || '/' || pg_current_xact_id()::text, true);
    DELETE FROM events AS e
    USING archived_streams AS a
    WHERE a.stream_id = ANY (p_streams)
      AND a.segment_id = p_segment
      AND e.stream_id = a.stream_id
      AND e.stream_version <= a.final_version;
    GET DIAGNOSTICS removed = ROW_COUNT;
    PERFORM set_config('hookproof.archive_remove', '', true);
    RETURN removed;
END;
$$;
