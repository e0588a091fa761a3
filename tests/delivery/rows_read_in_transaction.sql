-- Rows this transaction has read so far from the tables a claim or ingest's matching reads
-- (heap rows by sequential scan, and rows fetched through an index or bitmap).
SELECT coalesce(sum(idx_tup_fetch + seq_tup_read), 0)
FROM pg_stat_xact_user_tables
WHERE relname IN ('deliveries', 'subscriptions', 'events')
