"""The engine's clock: one object, chosen at the composition root and passed to every part."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

__all__ = ["Clock", "system_clock"]

#: now, timezone-aware (UTC)
Clock = Callable[[], datetime]


def system_clock() -> datetime:
    """The wall clock, in UTC."""
    return datetime.now(UTC)
