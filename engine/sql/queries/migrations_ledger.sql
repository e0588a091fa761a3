-- Which migrations ran (created before any migration, so it is not one itself).
CREATE TABLE IF NOT EXISTS hookproof_migrations (
    number integer PRIMARY KEY,
    name text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
)
