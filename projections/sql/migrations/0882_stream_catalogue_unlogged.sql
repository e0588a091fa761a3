-- The stream catalogue writes no WAL (bench/HISTORY.md "Session 7": ~0.5 KiB per delivery, the
-- largest share of the log's cost that is not evidence). No request path reads it; the archive
-- and `projections rebuild --verify` catch it up before reading it. An unlogged table is
-- emptied by crash recovery (and is empty on a promoted standby), while its checkpoint, in the
-- logged projection_checkpoints, survives: the mark below, unlogged as well, disappears with
-- the rows, and a projector that finds it missing empties the table, sets the mark and moves
-- the checkpoint back to the start of the log (projections/projector.py, `consume`).
CREATE UNLOGGED TABLE IF NOT EXISTS projection_unlogged_marks (
    name text PRIMARY KEY,
    marked_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE proj_stream_catalogue SET UNLOGGED;
INSERT INTO projection_unlogged_marks (name) VALUES ('stream_catalogue') ON CONFLICT (name) DO NOTHING;
