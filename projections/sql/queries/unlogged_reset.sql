-- An unlogged projection whose mark is gone: whatever rows it has no longer match its checkpoint.
TRUNCATE {table}
