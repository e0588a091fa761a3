"""The asynchronous projector as a daemon worker, and its catch-up when the daemon stops."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

import structlog

from hookproof.events import EventStore
from hookproof.projections import Projection, Projector

__all__ = ["SETTLE_S", "projector_role"]

log = structlog.get_logger("hookproof.projections")

#: at a graceful stop, the projector waits at most this long to reach the committed head
SETTLE_S = 5.0

Worker = Callable[[asyncio.Event], Awaitable[None]]


def projector_role(
    store: EventStore, projections: Sequence[Projection], *, settle_s: float = SETTLE_S
) -> tuple[Worker, Callable[[], Awaitable[None]]]:
    """The worker that keeps ``projections`` current, and the catch-up the daemon runs once
    every writer of its process has stopped: the projections reach the head committed then
    (waiting at most ``settle_s`` for transactions still open elsewhere), so a daemon stopped
    right after a change leaves no lag behind."""
    projector = Projector(store, projections)

    async def run(stop: asyncio.Event) -> None:
        await projector.run(stop)

    async def settle() -> None:
        try:
            behind = await projector.settle(settle_s)
        except Exception as exc:  # the stop goes on; the next projector catches up
            log.warning("projector_settle_failed", error=type(exc).__name__)
            return
        if behind:
            log.warning("projector_settle_incomplete", events_behind=behind, waited_s=settle_s)
        else:
            log.info("projector_settled")

    return run, settle
