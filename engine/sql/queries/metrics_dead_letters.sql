-- Dead letters from their partial index, counted up to $1 rows.
SELECT count(*) FROM (SELECT 1 FROM deliveries WHERE state = 'DEAD_LETTER' LIMIT $1) AS dead
