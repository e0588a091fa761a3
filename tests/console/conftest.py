from tests.delivery.conftest import ca, engine, settings, subscriber

__all__ = ["ca", "engine", "settings", "subscriber"]
