-- The primary's WAL insert position (a pg_lsn as text) read right after a write committed: it is
-- at or past that write's commit record, so a standby that replayed past it sees the write.
SELECT pg_current_wal_insert_lsn()::text
