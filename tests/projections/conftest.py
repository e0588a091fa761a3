"""The load test here reuses the delivery harness: a real engine, a real HTTPS subscriber."""

from __future__ import annotations

from ..delivery.conftest import ca, engine, settings, subscriber, tenant  # noqa: F401
