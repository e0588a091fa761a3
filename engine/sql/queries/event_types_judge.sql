-- Ingest, inside its group transaction: the types of these (tenant, topic) pairs. $3 is the
-- stream version whose validators the worker holds compiled (0: none); the definition comes
-- back only when it is another one, so a warm cache costs one small row per typed topic.
SELECT t.tenant_id, t.topic, t.stream_version, t.majors,
       CASE WHEN t.stream_version = q.cached THEN NULL ELSE t.definition END AS definition
FROM unnest($1::text[], $2::text[], $3::bigint[]) AS q (tenant_id, topic, cached)
JOIN event_types AS t ON t.tenant_id = q.tenant_id AND t.topic = q.topic
