-- As rebuild_index_create, for a UNIQUE index.
CREATE UNIQUE INDEX {index} ON {fresh} {definition}
