INSERT INTO projection_unlogged_marks (name) VALUES ($1) ON CONFLICT (name) DO NOTHING
