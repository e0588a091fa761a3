-- One of the live table's secondary indexes, built on the fresh copy under a temporary name;
-- {definition} is the catalogue's own text after "ON <table>" (pg_indexes.indexdef).
CREATE INDEX {index} ON {fresh} {definition}
