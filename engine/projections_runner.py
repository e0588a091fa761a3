"""The asynchronous projector as a daemon worker."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

from hookproof.events import EventStore
from hookproof.projections import Projection, Projector

__all__ = ["projector_worker"]


def projector_worker(
    store: EventStore, projections: Sequence[Projection]
) -> Callable[[asyncio.Event], Awaitable[None]]:
    async def run(stop: asyncio.Event) -> None:
        await Projector(store, projections).run(stop)

    return run
