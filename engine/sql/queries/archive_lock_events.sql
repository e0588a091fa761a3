-- The anchor transaction: wait for every append in flight, hold new ones until it commits.
LOCK TABLE events IN SHARE ROW EXCLUSIVE MODE
