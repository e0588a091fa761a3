-- The Postgres version (hookproof db status).
SHOW server_version
