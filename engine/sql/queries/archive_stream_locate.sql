-- Where an archived stream's events are: its tombstone and its segment's file.
SELECT a.stream_id, a.segment_id, a.final_version, a.final_hash, a.events, a.member_offset,
       a.member_length, s.file_name
FROM archived_streams AS a JOIN archive_segments AS s USING (segment_id)
WHERE a.stream_id = $1
