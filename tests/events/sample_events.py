"""Event types used only by the store tests."""

from __future__ import annotations

from typing import Any, ClassVar

from hookproof.events import Event, upcaster


class ThingHappened(Event, frozen=True, tag="test.thing_happened"):
    n: int
    note: str = ""


class ThingRenamed(Event, frozen=True, tag="test.thing_renamed"):
    """Version 1 called the reason ``why``; version 2 calls it ``reason``."""

    schema_version: ClassVar[int] = 2
    name: str
    reason: str


@upcaster("test.thing_renamed", 1)
def _renamed_v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    data = dict(data)
    data["reason"] = data.pop("why", "unknown")
    return data
