-- Serialise writers of the given streams for this transaction (used for expected version "any",
-- whose writers would otherwise race for the same next version).
SELECT pg_advisory_xact_lock(hashtextextended(s, 0)) FROM unnest($1::text[]) AS s ORDER BY s
