-- Serialise writers of the given streams (or named keys) for this transaction: appends with
-- expected version "any", whose writers would otherwise race for the same next version, and
-- commands run under a lock (events/command.py).
SELECT pg_advisory_xact_lock(hashtextextended(s, 0)) FROM unnest($1::text[]) AS s ORDER BY s
