-- A rebuild's fresh copy of an unlogged projection is unlogged too (LIKE copies no persistence).
ALTER TABLE {fresh} SET UNLOGGED
