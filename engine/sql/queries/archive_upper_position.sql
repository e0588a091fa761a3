-- The position of the newest event recorded before the cutoff: candidate scans stop there.
SELECT global_position FROM events WHERE recorded_at < $1 ORDER BY recorded_at DESC LIMIT 1
