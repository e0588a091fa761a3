-- Search over events and deliveries with the filter languages (issue 54,
-- engine/search/): the index the filters' equalities are pushed down to.
--
-- What the index holds of an event: its canonical body's (event_bodies.body: UTF-8 JSON, the
-- bytes every delivery carries) `payload` and `aggregateId` (the CloudEvents subject), as
-- {"payload": ..., "aggregateId": ...}. Only those: the type and the event id are the delivery
-- log's own columns, and every other field would cost index entries (WAL) on every ingest for
-- searches nobody makes (bench/results/search.json: about half the WAL of the whole body).
-- The bodies are written by the engine alone and never change (a trigger refuses UPDATE), so
-- the function may be declared IMMUTABLE for an index. jsonb refuses the escape \u0000 (a
-- JSON string may hold it): such a body (any body whose text holds those six characters,
-- `\\u0000` included) reads as NULL and is in no index entry, never an error that would refuse
-- the event's ingest. A search whose equality the index answers does not find such an event;
-- every other search does (docs/search.md).
CREATE OR REPLACE FUNCTION hookproof_body_search(body bytea) RETURNS jsonb
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT CASE WHEN position('\x5c7530303030'::bytea IN body) > 0 THEN NULL
                ELSE (SELECT jsonb_build_object('payload', j -> 'payload',
                                                'aggregateId', j -> 'aggregateId')
                      FROM (SELECT convert_from(body, 'UTF8')::jsonb AS j) AS parsed) END
$$;

-- The filters' equalities (a `match` document's plain paths under `data`, an `exact` on
-- subject: engine/search/pushdown.py) become one jsonpath predicate (`$."payload"."k" == v &&
-- ...`) that this index answers: jsonb_path_ops hashes each value with its path of keys
-- (arrays are transparent), so an equality finds its bodies without reading the others. One
-- entry set per event (not per delivery); fastupdate (the default) keeps the writes in its
-- pending list, which costs several times less WAL than inserting into the tree directly.
CREATE INDEX IF NOT EXISTS event_bodies_search
    ON event_bodies USING gin (hookproof_body_search(body) jsonb_path_ops);

-- POST /v1/events/search pages a tenant's events newest first, keyset on
-- (created_at, event_id).
CREATE INDEX IF NOT EXISTS event_bodies_tenant_time
    ON event_bodies (tenant_id, created_at, event_id);
ANALYZE event_bodies;
