from tests.delivery.conftest import ca, engine, settings, subscriber, tenant

__all__ = ["ca", "engine", "settings", "subscriber", "tenant"]
