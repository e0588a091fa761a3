-- events.recorded_at is the recording time (clock_timestamp() at insert): it follows the
-- insertion order, so a BRIN index (a few bytes per range of pages) serves every query that
-- bounds it (the gates' --since, rollout figures, the archive's upper position) where a
-- B-tree wrote one more entry for each event, about three per delivery (bench/HISTORY.md
-- "Session 6"). The archive's upper position asks for max(global_position) below the cutoff
-- (archive_upper_position.sql), which the BRIN index answers with a bitmap scan.
DROP INDEX IF EXISTS events_recorded_at;
CREATE INDEX IF NOT EXISTS events_recorded_at_brin ON events USING brin (recorded_at)
    WITH (pages_per_range = 16);
