-- Serialise key-ring decisions (rare) for the rest of the transaction.
SELECT pg_advisory_xact_lock(hashtextextended('hookproof.key_ring', 0))
