-- A held daemon left transactions open (their locks block the campaign's request): end them,
-- as Postgres itself would after idle_in_transaction_session_timeout (60 s, set by the
-- engine), without waiting that long. The daemon finds the connection closed when resumed.
-- $1: the held daemon's role.
SELECT pid, pg_terminate_backend(pid) AS terminated
FROM pg_stat_activity
WHERE usename = $1
  AND xact_start IS NOT NULL
