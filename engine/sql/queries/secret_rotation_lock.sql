-- One secret rotation of a subscription at a time ($1: subscription id), until commit.
SELECT pg_advisory_xact_lock(hashtextextended('hookproof.secret_rotation:' || $1::text, 0))
