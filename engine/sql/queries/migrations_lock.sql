-- One migrator at a time (session-level advisory lock).
SELECT pg_advisory_lock($1)
