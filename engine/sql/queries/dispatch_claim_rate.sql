-- The claim's last step (included by dispatch_claim.sql and dispatch_claim_endpoints.sql after
-- their `locked` rows; issue 35, DESIGN.md section 14): a subscription with a `rateLimit` in
-- its config keeps only as many of its locked rows, oldest due first, as its token bucket
-- grants (hookproof_rate_grant, migration 0985); the rest stay due (locked only until this
-- claim commits) for a later claim. The bucket is taken inside this statement: no extra round
-- trip per delivery. Rows of subscriptions without a limit skip it (the strpos test spares
-- them the JSON parse) and are returned as before, with rate_wait_s NULL. Of the rows a bucket
-- held back, the first is returned too, not to be sent: its rate_wait_s says how many seconds
-- until that bucket holds a whole token again (the dispatcher claims again then, not a poll
-- interval later; engine/delivery/dispatcher.py).
, wanted AS (
    SELECT l.subscription_id,
           -- clamped to the API's bounds (migration 1046): no row's value fails the claim
           hookproof_rate_per_second(l.sub_config) AS per_second,
           hookproof_rate_burst(l.sub_config) AS burst,
           count(*)::int AS n
    FROM locked AS l
    WHERE strpos(l.sub_config, '"rate_limit":{') > 0
    GROUP BY 1, 2, 3
), taken AS MATERIALIZED (  -- one call per subscription, in the subquery's order
    SELECT w.subscription_id,
           hookproof_rate_grant(w.subscription_id, w.per_second, w.burst, w.n) AS t
    FROM (SELECT * FROM wanted ORDER BY subscription_id) AS w  -- buckets locked in one order
), granted AS (
    SELECT k.subscription_id, (k.t).granted AS n, (k.t).wait_s AS wait_s FROM taken AS k
)
SELECT r.*, CASE WHEN r.rate_k > g.n THEN g.wait_s END AS rate_wait_s
FROM (SELECT l.*, row_number() OVER (PARTITION BY l.subscription_id ORDER BY l.due_at) AS rate_k
      FROM locked AS l) AS r
LEFT JOIN granted AS g ON g.subscription_id = r.subscription_id
WHERE g.n IS NULL OR r.rate_k <= g.n + 1
ORDER BY r.due_at
