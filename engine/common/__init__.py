"""What every part of the engine uses: its clock and a bounded memo."""
