"""The database: which Postgres, its migrations and named queries, the repositories' base
and what the database holds (``db status``, the storage outlook)."""
