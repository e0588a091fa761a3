-- The fresh copy takes the live table's place, and its primary key the live name (so the next
-- rebuild finds the same names).
DROP TABLE {live};
ALTER TABLE {fresh} RENAME TO {live};
ALTER INDEX IF EXISTS {fresh_pkey} RENAME TO {live_pkey};
