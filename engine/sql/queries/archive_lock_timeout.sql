-- For the rest of this transaction: how long a lock may be waited for ($1, e.g. '100ms').
-- The anchor's table lock queues every append behind it while it waits (behind an autovacuum
-- of events, say): a short wait that fails and is retried later stalls delivery far less.
SELECT set_config('lock_timeout', $1, true)
