-- The observer's read after stopping a daemon: its sessions (its own database role) that are
-- inside an open transaction. Stopped there, the daemon would keep that transaction's locks
-- and the campaign's own requests would wait on them.
-- $1: the daemon's role.
SELECT pid, state, left(query, 160) AS query, xact_start,
       extract(epoch FROM now() - xact_start)::float8 AS xact_s
FROM pg_stat_activity
WHERE usename = $1
  AND xact_start IS NOT NULL
