-- The observer's read before holding a daemon: transactions other than this one that have
-- been open longer than $1 seconds (a stopped daemon's open transaction would hold its locks).
SELECT count(*) AS n
FROM pg_stat_activity
WHERE datname = current_database()
  AND pid <> pg_backend_pid()
  AND xact_start IS NOT NULL
  AND xact_start < now() - make_interval(secs => $1)
