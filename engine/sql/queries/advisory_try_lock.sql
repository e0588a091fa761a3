-- One archive run at a time: a session-level advisory lock, or false when another holds it.
SELECT pg_try_advisory_lock($1)
