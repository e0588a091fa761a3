-- The newest generation of a subscription that passed a challenge (its endpoint was verified).
SELECT max((convert_from(data, 'UTF8')::jsonb ->> 'generation')::integer)
FROM events
WHERE stream_id = $1 AND type = 'subscription.challenge_passed'
