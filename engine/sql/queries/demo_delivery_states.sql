-- Every delivery's ledger and application state (the demo waits until none is in flight).
SELECT state, application FROM deliveries
