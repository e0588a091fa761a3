-- Anchored segments whose rows have not all left the hot tables (a run stopped midway).
SELECT segment_id, file_name, file_sha256 FROM archive_segments
WHERE completed_at IS NULL ORDER BY anchored_at
