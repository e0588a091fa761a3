"""The asynchronous projector as a daemon worker.

The only asynchronous projection is the stream catalogue, which no request path reads (the
archive catches it up itself before choosing streams, ``Archiver.run``; ``projections rebuild
--verify`` does the same before comparing). So it is kept in batches, not per commit: at most
one pass every ``CATALOGUE_INTERVAL_S`` seconds, in pages of ``CATALOGUE_PAGE`` events. A
delivery's three events (planned, admitted, outcome) then usually fall in one page and become
one catalogue row written once, instead of an insert and two updates as separate commits
(bench/README.md "Session 6").
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

from hookproof.events import EventStore
from hookproof.projections import Projection, Projector

__all__ = ["CATALOGUE_INTERVAL_S", "CATALOGUE_PAGE", "catch_up", "projector_worker"]

#: the least time between two passes of the daemon's projector (seconds)
CATALOGUE_INTERVAL_S = 60.0
#: events per page (one transaction, one merge statement); headers only, ~100 bytes each
CATALOGUE_PAGE = 20_000


def projector_worker(
    store: EventStore,
    projections: Sequence[Projection],
    *,
    interval_s: float = CATALOGUE_INTERVAL_S,
) -> Callable[[asyncio.Event], Awaitable[None]]:
    async def run(stop: asyncio.Event) -> None:
        await Projector(store, projections, batch=CATALOGUE_PAGE).run(
            stop, poll_interval=interval_s, min_interval=interval_s
        )

    return run


async def catch_up(store: EventStore, projections: Sequence[Projection]) -> int:
    """Apply everything readable now to ``projections`` (events applied). Safe beside the
    daemon's projector: each page moves the checkpoint under its row lock."""
    return await Projector(store, projections, batch=CATALOGUE_PAGE).run_once()
