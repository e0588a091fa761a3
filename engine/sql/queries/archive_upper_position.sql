-- The position of the newest event recorded before the cutoff: candidate scans stop there.
-- recorded_at follows the insertion order and has a BRIN index (migration 0881): the greatest
-- position among the rows recorded before the cutoff (every such row is below it).
SELECT max(global_position) AS global_position FROM events WHERE recorded_at < $1
