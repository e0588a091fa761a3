-- How far a hot standby has replayed the primary's WAL (a pg_lsn as text). A server that is not
-- in recovery (the read URL names a primary) answers its own WAL position: it has every write.
SELECT COALESCE(pg_last_wal_replay_lsn(), pg_current_wal_lsn())::text
