INSERT INTO hookproof_migrations (number, name) VALUES ($1, $2)
