UPDATE archive_segments SET completed_at = clock_timestamp()
WHERE segment_id = $1 AND completed_at IS NULL
