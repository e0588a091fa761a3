-- Dead and live row versions of the ledger table as the statistics know them (flushed by the
-- backends about once a second): whether the due index's dead entries are worth a vacuum.
SELECT coalesce(n_dead_tup, 0) AS dead, coalesce(n_live_tup, 0) AS live
FROM pg_stat_user_tables
WHERE relid = 'deliveries'::regclass
