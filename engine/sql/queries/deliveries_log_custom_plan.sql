-- The delivery log's reads plan for the values they are given, never a generic plan: the
-- prepared statement's generic plan cannot know which optional filters are NULL and may walk
-- the wrong index (bench/HISTORY.md "Session 9": a second of wall time against 0.2 ms). Local
-- to the read's own transaction.
SET LOCAL plan_cache_mode = force_custom_plan
