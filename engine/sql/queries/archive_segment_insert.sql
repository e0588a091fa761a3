INSERT INTO archive_segments (segment_id, file_name, file_sha256, file_size, manifest_digest,
                              key_id, streams, events, first_recorded_at, last_recorded_at,
                              cutoff, anchor_position)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
