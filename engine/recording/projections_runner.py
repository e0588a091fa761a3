"""The asynchronous projector as a daemon worker, and its catch-up when the daemon stops.

Two projections are asynchronous, both kept in batches, never per commit:

- the stream catalogue, which no request path reads (the archive catches it up itself before
  choosing streams, ``Archiver.run``; ``projections rebuild --verify`` does the same before
  comparing): at most one pass every ``CATALOGUE_INTERVAL_S`` seconds, in pages of
  ``CATALOGUE_PAGE`` events. A delivery's three events (planned, admitted, outcome) then
  usually fall in one page and become one catalogue row written once, instead of an insert and
  two updates as separate commits (bench/HISTORY.md "Session 6");
- the attempt statistics (``projections/attempt_stats.py``), which ``attempt-stats`` reads:
  a pass every ``Settings.stats_interval_s`` (5 s by default), so the counts are at most that
  far behind; each pass changes each (subscription, hour, outcome) row once, however many
  attempts it folds (bench/HISTORY.md "Session 8").

A graceful stop still brings them to the committed head.

A stream-catalogue page is read, folded and merged by Postgres in one statement
(``StreamCatalogue.advance``): the first worker's event loop, which also answers the API,
only waits for it. Folding a minute's pages in Python held that loop for hundreds of
milliseconds once a minute: the API's p99 spikes of issue 40 (bench/HISTORY.md "Session 8:
soak"). Each pass that applied events logs ``catalogue_pass`` (events, milliseconds).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence

import structlog

from hookproof.events import EventStore
from hookproof.projections import Projection, Projector
from hookproof.projections.projector import run_woken

__all__ = [
    "CATALOGUE_INTERVAL_S",
    "CATALOGUE_PAGE",
    "SETTLE_S",
    "ProjectorRole",
    "catch_up",
]

log = structlog.get_logger("hookproof.projections")

#: the least time between two passes of the daemon's projector (seconds)
CATALOGUE_INTERVAL_S = 60.0
#: events per page: one transaction, one statement that reads, folds and merges them in the
#: server (a minute of 40 events/s to five subscriptions is ~38,000 events: a few pages)
CATALOGUE_PAGE = 10_000
#: at a graceful stop, the projector waits at most this long to reach the committed head
SETTLE_S = 5.0


class ProjectorRole:
    """The worker that keeps ``projections`` current (a pass at most every ``interval_s``, or
    every ``intervals[name]`` for the projections named there: one projector per interval),
    and the catch-up the daemon runs once every writer of its process has stopped: the
    projections reach the head committed then (waiting at most ``settle_s`` for transactions
    still open elsewhere), so a daemon stopped right after a change leaves no lag behind."""

    __slots__ = ("projectors", "settle_s")

    def __init__(
        self,
        store: EventStore,
        projections: Sequence[Projection],
        *,
        settle_s: float = SETTLE_S,
        interval_s: float = CATALOGUE_INTERVAL_S,
        intervals: Mapping[str, float] | None = None,
    ) -> None:
        groups: dict[float, list[Projection]] = {}
        for p in projections:
            groups.setdefault((intervals or {}).get(p.name, interval_s), []).append(p)
        #: (interval in seconds, its projector), one per distinct interval
        self.projectors: tuple[tuple[float, Projector], ...] = tuple(
            (every, Projector(store, members, batch=CATALOGUE_PAGE))
            for every, members in groups.items()
        )
        self.settle_s = settle_s

    async def run(self, stop: asyncio.Event) -> None:
        await asyncio.gather(
            *(
                run_woken(
                    p.store,
                    stop,
                    _timed(p),
                    poll_interval=every,
                    min_interval=every,
                    tick_failed="projector_error",
                    listener_lost="projector_listener_lost",
                )
                for every, p in self.projectors
            )
        )

    async def settle(self) -> None:
        behind = 0
        try:
            for _, projector in self.projectors:
                behind = max(behind, await projector.settle(self.settle_s))
        except Exception as exc:  # the stop goes on; the next projector catches up
            log.warning("projector_settle_failed", error=type(exc).__name__)
            return
        if behind:
            log.warning("projector_settle_incomplete", events_behind=behind, waited_s=self.settle_s)
        else:
            log.info("projector_settled")


async def catch_up(store: EventStore, projections: Sequence[Projection]) -> int:
    """Apply everything readable now to ``projections`` (events applied). Safe beside the
    daemon's projector: each page moves the checkpoint under its row lock."""
    return await Projector(store, projections, batch=CATALOGUE_PAGE).run_once()


def _timed(projector: Projector) -> Callable[[], Awaitable[int]]:
    """One pass of ``projector``, logged (events, ms) when it applied any: ``catalogue_pass``
    for the stream catalogue's projector, ``projector_pass`` for the others."""
    names = [p.name for p in projector.projections]
    event = "catalogue_pass" if any("catalogue" in n for n in names) else "projector_pass"

    async def tick() -> int:
        started = time.monotonic()
        applied = await projector.run_once()
        if applied:
            ms = round((time.monotonic() - started) * 1000, 1)
            log.info(event, events=applied, ms=ms, page=CATALOGUE_PAGE, projections=names)
        return applied

    return tick
