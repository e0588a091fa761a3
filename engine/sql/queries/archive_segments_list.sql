SELECT segment_id, file_name, file_sha256, file_size, manifest_digest, key_id, streams, events,
       first_recorded_at, last_recorded_at, cutoff, anchor_position, anchored_at, completed_at
FROM archive_segments ORDER BY anchored_at, segment_id
