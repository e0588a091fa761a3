-- Take (creating if needed) a projection's checkpoint row, locked for this transaction.
INSERT INTO projection_checkpoints (name) VALUES ($1) ON CONFLICT (name) DO NOTHING;
