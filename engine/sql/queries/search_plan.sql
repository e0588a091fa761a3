-- A search plans for its values (as the delivery log does: deliveries_log_custom_plan.sql)
-- and reads within its time budget: past it the statement is cancelled and the search is
-- answered `search_too_broad` (engine/search/repository.py). Local to the search's own
-- transaction; $1 is the budget in milliseconds.
SELECT set_config('plan_cache_mode', 'force_custom_plan', true),
       set_config('statement_timeout', $1::text, true)
