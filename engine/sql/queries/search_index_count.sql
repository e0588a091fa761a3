-- How many of a tenant's events the search index finds for a search's equalities, counted up
-- to a cap ($3): a few (the index's plan: read them all, then order them) or many (the page's
-- time order: a page fills after a few rows, each checked). $1 tenant, $2 the jsonpath.
SELECT count(*) FROM (
    SELECT 1 FROM event_bodies
    WHERE tenant_id = $1 AND hookproof_body_search(body) @@ $2::jsonpath
    LIMIT $3
) AS found
