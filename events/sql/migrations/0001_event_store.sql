-- The append-only event log. Every fact hookproof knows is a row here; everything else is a
-- projection that can be rebuilt from it.
CREATE TABLE IF NOT EXISTS events (
    global_position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- The writing transaction. Readers only take rows whose transaction is older than every
    -- transaction still running (pg_snapshot_xmin), so a late commit is never skipped.
    tx_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
    stream_id text NOT NULL CHECK (length(stream_id) BETWEEN 1 AND 200),
    category text NOT NULL,
    stream_version bigint NOT NULL CHECK (stream_version >= 1),
    event_id uuid NOT NULL UNIQUE,
    type text NOT NULL,
    schema_version integer NOT NULL CHECK (schema_version >= 1),
    -- Canonical JSON bytes exactly as hashed; query with convert_from(data, 'UTF8')::jsonb.
    data bytea NOT NULL,
    metadata bytea NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    prev_hash bytea,
    hash bytea NOT NULL CHECK (length(hash) = 32),
    CONSTRAINT events_stream_version_key UNIQUE (stream_id, stream_version)
);

CREATE INDEX IF NOT EXISTS events_tx_position ON events (tx_id, global_position);
CREATE INDEX IF NOT EXISTS events_category_position ON events (category, global_position);
CREATE INDEX IF NOT EXISTS events_recorded_at ON events (recorded_at);

-- Append-only in the database itself, against a careless operator with SQL access.
CREATE OR REPLACE FUNCTION hookproof_events_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'events is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege', HINT = 'hookproof_append_only';
END;
$$;

DROP TRIGGER IF EXISTS events_refuse_update_delete ON events;
CREATE TRIGGER events_refuse_update_delete
    BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION hookproof_events_refuse_change();

DROP TRIGGER IF EXISTS events_refuse_truncate ON events;
CREATE TRIGGER events_refuse_truncate
    BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION hookproof_events_refuse_change();

-- Wake tailers. Delivered at commit, one per transaction.
CREATE OR REPLACE FUNCTION hookproof_events_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('hookproof_events', '');
    RETURN NULL;
END;
$$;

DROP TRIGGER IF EXISTS events_notify ON events;
CREATE TRIGGER events_notify
    AFTER INSERT ON events
    FOR EACH STATEMENT EXECUTE FUNCTION hookproof_events_notify();

-- Hash chain, recomputed in SQL: sha256(prev_hash || header || data || 0x00 || metadata).
-- The header is stream_id, version, event id, type and schema version, NUL-separated; the
-- same formula lives in events/chain.py.
CREATE OR REPLACE FUNCTION hookproof_event_hash(
    p_prev bytea, p_stream text, p_version bigint, p_event_id uuid, p_type text,
    p_schema integer, p_data bytea, p_metadata bytea
) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
    SELECT sha256(
        coalesce(p_prev, ''::bytea)
        || convert_to(p_stream, 'UTF8') || '\x00'::bytea
        || convert_to(p_version::text, 'UTF8') || '\x00'::bytea
        || convert_to(p_event_id::text, 'UTF8') || '\x00'::bytea
        || convert_to(p_type, 'UTF8') || '\x00'::bytea
        || convert_to(p_schema::text, 'UTF8') || '\x00'::bytea
        || p_data || '\x00'::bytea || p_metadata
    );
$$;

-- The first broken link of a stream's chain (NULL when intact).
CREATE OR REPLACE FUNCTION hookproof_verify_stream(p_stream text)
RETURNS TABLE (stream_version bigint, problem text)
LANGUAGE plpgsql STABLE AS $$
DECLARE
    r record;
    expected_prev bytea := NULL;
    expected_version bigint := 1;
BEGIN
    FOR r IN SELECT e.stream_version AS v, e.event_id, e.type, e.schema_version, e.data,
                    e.metadata, e.prev_hash, e.hash
             FROM events e WHERE e.stream_id = p_stream ORDER BY e.stream_version
    LOOP
        IF r.v <> expected_version THEN
            stream_version := r.v; problem := 'version_gap'; RETURN NEXT; RETURN;
        END IF;
        IF r.prev_hash IS DISTINCT FROM expected_prev THEN
            stream_version := r.v; problem := 'prev_hash_mismatch'; RETURN NEXT; RETURN;
        END IF;
        IF r.hash <> hookproof_event_hash(r.prev_hash, p_stream, r.v, r.event_id, r.type,
                                         r.schema_version, r.data, r.metadata) THEN
            stream_version := r.v; problem := 'hash_mismatch'; RETURN NEXT; RETURN;
        END IF;
        expected_prev := r.hash;
        expected_version := r.v + 1;
    END LOOP;
END;
$$;
