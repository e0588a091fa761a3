-- Secondary indexes of a projection table (the primary key comes with its CREATE TABLE).
SELECT i.indexname, i.indexdef
FROM pg_indexes AS i
WHERE i.schemaname = current_schema() AND i.tablename = $1
  AND i.indexname <> $1 || '_pkey'
ORDER BY i.indexname
