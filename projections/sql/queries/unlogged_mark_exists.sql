-- Whether an unlogged projection's rows are still the ones its checkpoint describes (the mark
-- vanishes with them in a crash).
SELECT EXISTS (SELECT 1 FROM projection_unlogged_marks WHERE name = $1)
