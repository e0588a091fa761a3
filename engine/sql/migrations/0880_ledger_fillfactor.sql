-- A delivery's ledger row is written three times (planned, admitted, outcome) and no update
-- can be HOT (each changes `state`, which the queue's partial indexes name), so every update
-- writes a new row version. With room left on its page the new version stays there: the WAL
-- record then carries only the bytes that changed (Postgres logs an update on the same page
-- with its common prefix and suffix left out) and one page instead of two, and pruning
-- reclaims the old versions in place. bench/HISTORY.md "Session 6" measures it.
-- Applies to pages filled from now on; existing pages are left as they are.
ALTER TABLE deliveries SET (fillfactor = 50);
