-- The append-only triggers of the log and whether they fire (tgenabled 'D' = disabled).
SELECT tgname, tgenabled::text <> 'D' AS enabled
FROM pg_trigger
WHERE tgrelid = 'events'::regclass
  AND tgname IN ('events_refuse_update_delete', 'events_refuse_truncate')
  AND NOT tgisinternal
