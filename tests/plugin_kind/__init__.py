"""A destination kind installed from outside hookproof (its own pyproject.toml)."""
