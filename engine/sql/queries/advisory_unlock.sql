-- Release a session-level advisory lock (migrations, the archive run).
SELECT pg_advisory_unlock($1)
