-- Bytes on disk per table of hookproof's schema: the heap, its indexes, and the rest (TOAST,
-- free space and visibility maps). hookproof db status and the start-up storage outlook.
SELECT c.relname AS table_name,
       pg_total_relation_size(c.oid) AS total_bytes,
       pg_relation_size(c.oid) AS heap_bytes,
       pg_indexes_size(c.oid) AS index_bytes,
       c.relpersistence = 'u' AS unlogged
FROM pg_class AS c
JOIN pg_namespace AS n ON n.oid = c.relnamespace
WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
ORDER BY total_bytes DESC, table_name
