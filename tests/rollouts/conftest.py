from tests.receipts.harness import api, ca, engine, hooks, settings, tenant_token

__all__ = ["api", "ca", "engine", "hooks", "settings", "tenant_token"]
