-- Search over events and deliveries with the filter languages (issue 54,
-- engine/search/): the index the filters' equalities are pushed down to.
--
-- An event's canonical body (event_bodies.body: the bytes every delivery carries, UTF-8 JSON:
-- type, eventId, version, aggregateId, aggregateVersion, occurredAt, payload, source?) read as
-- jsonb. The bodies are written by the engine alone, always canonical UTF-8 JSON, and never
-- change (a trigger refuses UPDATE), so the function may be declared IMMUTABLE for an index.
-- jsonb refuses the escape \u0000 (a JSON string may hold it): such a body (any body whose
-- text holds those six characters, `\\u0000` included) reads as NULL and is in no index entry,
-- never an error that would refuse the event's ingest. A search whose equality the index
-- answers does not find such an event; every other search does (docs/search.md).
CREATE OR REPLACE FUNCTION hookproof_body_json(body bytea) RETURNS jsonb
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT CASE WHEN position('\x5c7530303030'::bytea IN body) > 0 THEN NULL
                ELSE convert_from(body, 'UTF8')::jsonb END
$$;

-- The filters' equalities (an `exact` on subject or eventversion, a `match` document's plain
-- paths: engine/search/pushdown.py) become one jsonpath predicate (`$."payload"."k" == v &&
-- ...`) that this index answers: jsonb_path_ops hashes each value with its path of keys
-- (arrays are transparent), so an equality finds its bodies without reading the others. One
-- entry set per event (not per delivery); fastupdate keeps the writes in its pending list.
CREATE INDEX IF NOT EXISTS event_bodies_search
    ON event_bodies USING gin (hookproof_body_json(body) jsonb_path_ops);

-- POST /v1/events/search pages a tenant's events newest first, keyset on
-- (created_at, event_id).
CREATE INDEX IF NOT EXISTS event_bodies_tenant_time
    ON event_bodies (tenant_id, created_at, event_id);
ANALYZE event_bodies;
