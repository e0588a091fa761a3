"""What every part of the engine uses: its clock, a bounded memo, a bounded JSON scanner."""
