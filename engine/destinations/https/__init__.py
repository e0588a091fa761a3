"""The ``https`` kind: a signed POST through the pinned egress (DESIGN.md 5 and 14)."""
