"""The real HTTPS receiver (trustme) of the delivery tests, for the sender SDK's tests."""

from tests.delivery.conftest import ca, subscriber

__all__ = ["ca", "subscriber"]
