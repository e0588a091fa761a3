SELECT state, count(*) AS n,
       extract(epoch FROM now() - min(next_attempt_at) FILTER (WHERE next_attempt_at <= now()))
           AS oldest_due_s
FROM deliveries GROUP BY state
