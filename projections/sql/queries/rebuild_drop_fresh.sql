-- A leftover copy of an interrupted rebuild.
DROP TABLE IF EXISTS {fresh}
