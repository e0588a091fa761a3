"""The ``relay`` kind: an attempt through a ``hookproof listen`` session (DESIGN.md 11)."""
