-- ANALYZE events reads a sample of 300 x the largest statistics target rows and computes
-- statistics for every column of it; autovacuum analyses a young log every minute (issue 40:
-- 1-2 s of a core each time on a busy machine). Five columns are never filtered, joined,
-- grouped or sorted on by any query (the event's bytes, its hashes, its schema version: the
-- evidence, read only by position or stream): no statistics. The others are looked up by
-- unique keys or walked in index order, and their few common values (category, type,
-- stream_version) fit in ten: target 10, a sample of 3,000 rows instead of 30,000.
-- bench/HISTORY.md "Session 10: soak" (bench_analyze.py, a soak's database of 200,000 events):
-- ANALYZE events 640 -> 40 ms of the server's CPU, and the generic plan of every named query
-- that reads events or deliveries (48) unchanged.
ALTER TABLE events
    ALTER COLUMN data SET STATISTICS 0,
    ALTER COLUMN metadata SET STATISTICS 0,
    ALTER COLUMN hash SET STATISTICS 0,
    ALTER COLUMN prev_hash SET STATISTICS 0,
    ALTER COLUMN schema_version SET STATISTICS 0,
    ALTER COLUMN global_position SET STATISTICS 10,
    ALTER COLUMN tx_id SET STATISTICS 10,
    ALTER COLUMN stream_id SET STATISTICS 10,
    ALTER COLUMN category SET STATISTICS 10,
    ALTER COLUMN stream_version SET STATISTICS 10,
    ALTER COLUMN event_id SET STATISTICS 10,
    ALTER COLUMN type SET STATISTICS 10,
    ALTER COLUMN recorded_at SET STATISTICS 10;
