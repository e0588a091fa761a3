-- Serialise commands on one rollout (its row may not exist yet on create).
SELECT pg_advisory_xact_lock(hashtextextended('rollout-' || $1, 0))
