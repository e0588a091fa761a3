-- The anchor of a segment in one call (one round trip): under a lock that holds every other
-- append for the few milliseconds it takes, check that none of the segment's streams moved
-- since they were read, append the archive.segment_written event to `archive-segments` (version
-- and hash chained in SQL with the same formula as events/chain.py), record the segment and
-- one tombstone per stream. Returns the anchor's global position, or NULL (nothing written)
-- when a stream moved or is archived already.
CREATE OR REPLACE FUNCTION hookproof_archive_anchor(
    p_segment text, p_file text, p_file_sha256 text, p_file_size bigint, p_manifest_digest text,
    p_key_id text, p_first timestamptz, p_last timestamptz, p_cutoff timestamptz,
    p_event_id uuid, p_data bytea, p_metadata bytea,
    p_streams text[], p_categories text[], p_versions bigint[], p_hashes bytea[],
    p_counts integer[], p_offsets bigint[], p_lengths bigint[], p_last_recorded timestamptz[]
) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    head_version bigint;
    head_hash bytea;
    v bigint;
    pos bigint;
BEGIN
    LOCK TABLE events IN SHARE ROW EXCLUSIVE MODE;
    IF EXISTS (
        SELECT 1 FROM unnest(p_streams, p_versions) AS s(stream_id, version)
        WHERE (SELECT max(e.stream_version) FROM events AS e WHERE e.stream_id = s.stream_id)
                  IS DISTINCT FROM s.version
           OR EXISTS (SELECT 1 FROM archived_streams AS a WHERE a.stream_id = s.stream_id)
    ) THEN
        RETURN NULL;
    END IF;
    SELECT e.stream_version, e.hash INTO head_version, head_hash
    FROM events AS e WHERE e.stream_id = 'archive-segments'
    ORDER BY e.stream_version DESC LIMIT 1;
    v := coalesce(head_version, 0) + 1;
    INSERT INTO events (stream_id, category, stream_version, event_id, type, schema_version,
                        data, metadata, prev_hash, hash)
    VALUES ('archive-segments', 'archive', v, p_event_id, 'archive.segment_written', 1,
            p_data, p_metadata, head_hash,
            hookproof_event_hash(head_hash, 'archive-segments', v, p_event_id,
                                 'archive.segment_written', 1, p_data, p_metadata))
    RETURNING global_position INTO pos;
    INSERT INTO archive_segments (segment_id, file_name, file_sha256, file_size, manifest_digest,
                                  key_id, streams, events, first_recorded_at, last_recorded_at,
                                  cutoff, anchor_position)
    VALUES (p_segment, p_file, p_file_sha256, p_file_size, p_manifest_digest, p_key_id,
            cardinality(p_streams), (SELECT sum(c) FROM unnest(p_counts) AS c), p_first, p_last,
            p_cutoff, pos);
    INSERT INTO archived_streams (stream_id, segment_id, category, final_version, final_hash,
                                  events, member_offset, member_length, last_recorded_at)
    SELECT s.stream_id, p_segment, s.category, s.version, s.hash, s.n, s.off, s.len, s.last
    FROM unnest(p_streams, p_categories, p_versions, p_hashes, p_counts, p_offsets, p_lengths,
                p_last_recorded) AS s(stream_id, category, version, hash, n, off, len, last);
    RETURN pos;
END;
$$;
