-- The append-only triggers of the log and whether they are enabled ('D' = disabled).
SELECT tgname, tgenabled
FROM pg_trigger
WHERE tgrelid = 'events'::regclass
  AND tgname IN ('events_refuse_update_delete', 'events_refuse_truncate')
  AND NOT tgisinternal
