SELECT file_name FROM archive_segments
WHERE $1::timestamptz IS NULL OR last_recorded_at >= $1
ORDER BY anchored_at
