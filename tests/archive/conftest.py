"""Archive tests reuse the delivery harness: a real engine, a real HTTPS subscriber."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import trustme

from hookproof.config import Settings

from ..delivery.conftest import Subscriber, ca, engine, subscriber, tenant  # noqa: F401
from ..support import loopback_settings


@pytest.fixture
def settings(subscriber: Subscriber, ca: trustme.CA, tmp_path: Path) -> Settings:  # noqa: F811
    """Receipt and replay windows of zero: terminal deliveries close at the cutoff."""
    base = loopback_settings(subscriber.port, ca, tmp_path, request_timeout_s=1.5)
    return dataclasses.replace(base, receipt_window_s=0.0, replay_window_s=0.0)
