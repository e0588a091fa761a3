-- The observer's read before holding a daemon: sessions sitting inside an open transaction,
-- waiting for their client for longer than $1 seconds. A daemon stopped there would keep its
-- locks; a running daemon's transactions are busy, or idle only for milliseconds.
SELECT pid, state, left(query, 160) AS query,
       extract(epoch FROM now() - state_change) AS idle_s
FROM pg_stat_activity
WHERE datname = current_database()
  AND pid <> pg_backend_pid()
  AND state IN ('idle in transaction', 'idle in transaction (aborted)')
  AND state_change < now() - make_interval(secs => $1)
