-- Remove the ledger's dead row versions and their index entries now (engine/delivery/upkeep.py).
-- Every admission moves a row out of the partial due index (deliveries_due) but leaves its
-- entry until a vacuum, at the front of the claim's scan (oldest next_attempt_at first): the
-- claim steps over every such entry each time. Autovacuum looks at a database at most once a
-- minute (autovacuum_naptime) and only after 20% of the table changed. SKIP_LOCKED: a running
-- (auto)vacuum of the table is left to finish; INDEX_CLEANUP ON: the index entries are the point.
VACUUM (SKIP_LOCKED, INDEX_CLEANUP ON) deliveries
