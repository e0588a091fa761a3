-- The queue from the due index (partial: waiting states only), counted up to $1 rows; the
-- oldest due comes from the index's first entry. No scan of the whole ledger per scrape.
SELECT
    (SELECT count(*) FROM (
        SELECT 1 FROM deliveries
        WHERE state IN ('PLANNED', 'RETRYABLE', 'UNKNOWN_TRANSPORT')
        LIMIT $1
    ) AS waiting) AS depth,
    extract(epoch FROM now() - (
        SELECT min(next_attempt_at) FROM deliveries
        WHERE state IN ('PLANNED', 'RETRYABLE', 'UNKNOWN_TRANSPORT') AND next_attempt_at <= now()
    )) AS oldest_due_s
