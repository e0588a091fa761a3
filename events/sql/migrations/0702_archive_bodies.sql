-- Canonical payload bodies of archived business events leave the hot table with their events,
-- through the same function and under the same grant (the payload digest stays in the log).
-- event_bodies stays immutable otherwise: its trigger refuses UPDATE and DELETE except a
-- DELETE made by hookproof_archive_remove of a body whose event stream the segment covers.
CREATE OR REPLACE FUNCTION hookproof_bodies_immutable() RETURNS trigger
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
           ) THEN
            RETURN OLD;
        END IF;
    END IF;
    RAISE EXCEPTION 'event_bodies is immutable: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;

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
    DELETE FROM event_bodies AS b
    USING archived_streams AS a
    WHERE a.stream_id = ANY (p_streams)
      AND a.segment_id = p_segment
      AND a.category = 'event'
      AND b.stream_id = a.stream_id;
    PERFORM set_config('hookproof.archive_remove', '', true);
    RETURN removed;
END;
$$;

-- With its body gone, an archived business event is found by its id through its tombstone
-- (`event-<tenant>/<eventId>`: neither part contains '/').
CREATE INDEX IF NOT EXISTS archived_streams_event_id
    ON archived_streams (split_part(stream_id, '/', 2)) WHERE category = 'event';
