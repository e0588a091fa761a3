SELECT to_regclass('hookproof_migrations') IS NOT NULL
