"""One sandbox per test module: compiling the QuickJS module takes seconds, a run a millisecond."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hookproof.engine.transform import Bounds, Sandbox, TransformInput


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    # a wall clock far above what the fuel allows, so a fuel bound is never a timeout under load
    box = Sandbox(Bounds(timeout_s=5.0), workers=2)
    yield box
    box.close()


def webhook(payload: object = None, **changes: object) -> TransformInput:
    fields: dict[str, object] = {
        "payload": {"id": "evt_1", "user": {"name": "Ada"}} if payload is None else payload,
        "event_type": "user.created",
        "url": "/hooks/in",
        "method": "POST",
        "now_ms": 1_765_000_000_000,
        "seed": bytes(range(16)),
    }
    fields.update(changes)
    return TransformInput(**fields)  # type: ignore[arg-type]
