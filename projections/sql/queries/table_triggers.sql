-- A projection table's own triggers (not the internal ones of constraints), as the catalogue
-- defines them: a rebuild gives its fresh copy the same ones before loading it.
SELECT t.tgname AS name, pg_get_triggerdef(t.oid) AS definition
FROM pg_trigger AS t
WHERE t.tgrelid = to_regclass($1) AND NOT t.tgisinternal
ORDER BY t.tgname
