"""Tracing tests run on the delivery harness: a real engine, a real HTTPS subscriber."""

from ..delivery.conftest import ca, engine, settings, subscriber, tenant  # noqa: F401
