-- Where each asynchronous projection has read up to: the (tx_id, position) pair of the last
-- event it applied, written in the same transaction as the projection's rows.
CREATE TABLE IF NOT EXISTS projection_checkpoints (
    name text PRIMARY KEY,
    tx_id xid8 NOT NULL DEFAULT '0'::xid8,
    global_position bigint NOT NULL DEFAULT 0,
    updated_at timestamptz NOT NULL DEFAULT now()
);
