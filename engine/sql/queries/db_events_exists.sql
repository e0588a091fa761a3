-- Whether the event store exists yet (hookproof db status on an empty database).
SELECT to_regclass('events') IS NOT NULL
