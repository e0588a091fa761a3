"""The asynchronous projector as a daemon worker, and its catch-up when the daemon stops.

The only asynchronous projection is the stream catalogue, which no request path reads (the
archive catches it up itself before choosing streams, ``Archiver.run``; ``projections rebuild
--verify`` does the same before comparing). So it is kept in batches, not per commit: at most
one pass every ``CATALOGUE_INTERVAL_S`` seconds, in pages of ``CATALOGUE_PAGE`` events. A
delivery's three events (planned, admitted, outcome) then usually fall in one page and become
one catalogue row written once, instead of an insert and two updates as separate commits
(bench/README.md "Session 6"). A graceful stop still brings it to the committed head.

A page is read, folded and merged by Postgres in one statement (``StreamCatalogue.advance``):
the first worker's event loop, which also answers the API, only waits for it. Folding a
minute's pages in Python held that loop for hundreds of milliseconds once a minute: the API's
p99 spikes of issue 40 (bench/README.md "Session 8: soak"). Each pass logs
``catalogue_pass`` (events, milliseconds).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence

import structlog

from hookproof.events import EventStore
from hookproof.projections import Projection, Projector
from hookproof.projections.projector import run_woken

__all__ = [
    "CATALOGUE_INTERVAL_S",
    "CATALOGUE_PAGE",
    "SETTLE_S",
    "catch_up",
    "projector_role",
]

log = structlog.get_logger("hookproof.projections")

#: the least time between two passes of the daemon's projector (seconds)
CATALOGUE_INTERVAL_S = 60.0
#: events per page: one transaction, one statement that reads, folds and merges them in the
#: server (a minute of 40 events/s to five subscriptions is ~38,000 events: a few pages)
CATALOGUE_PAGE = 10_000
#: at a graceful stop, the projector waits at most this long to reach the committed head
SETTLE_S = 5.0

Worker = Callable[[asyncio.Event], Awaitable[None]]


def projector_role(
    store: EventStore,
    projections: Sequence[Projection],
    *,
    settle_s: float = SETTLE_S,
    interval_s: float = CATALOGUE_INTERVAL_S,
) -> tuple[Worker, Callable[[], Awaitable[None]]]:
    """The worker that keeps ``projections`` current (a pass at most every ``interval_s``),
    and the catch-up the daemon runs once every writer of its process has stopped: the
    projections reach the head committed then (waiting at most ``settle_s`` for transactions
    still open elsewhere), so a daemon stopped right after a change leaves no lag behind."""
    projector = Projector(store, projections, batch=CATALOGUE_PAGE)

    async def tick() -> int:
        started = time.monotonic()
        applied = await projector.run_once()
        if applied:
            ms = round((time.monotonic() - started) * 1000, 1)
            log.info("catalogue_pass", events=applied, ms=ms, page=CATALOGUE_PAGE)
        return applied

    async def run(stop: asyncio.Event) -> None:
        await run_woken(
            store,
            stop,
            tick,
            poll_interval=interval_s,
            min_interval=interval_s,
            tick_failed="projector_error",
            listener_lost="projector_listener_lost",
        )

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


async def catch_up(store: EventStore, projections: Sequence[Projection]) -> int:
    """Apply everything readable now to ``projections`` (events applied). Safe beside the
    daemon's projector: each page moves the checkpoint under its row lock."""
    return await Projector(store, projections, batch=CATALOGUE_PAGE).run_once()
