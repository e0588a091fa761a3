-- A per-session staging table for large appends: filled with COPY (far cheaper for the server
-- than unnesting ten arrays), emptied by append_staged in the same transaction.
CREATE TEMP TABLE IF NOT EXISTS append_stage (
    ord integer NOT NULL,
    stream_id text NOT NULL,
    category text NOT NULL,
    stream_version bigint NOT NULL,
    event_id uuid NOT NULL,
    type text NOT NULL,
    schema_version integer NOT NULL,
    data bytea NOT NULL,
    metadata bytea NOT NULL,
    prev_hash bytea,
    hash bytea NOT NULL
) ON COMMIT DELETE ROWS
