"""The asynchronous projector as a daemon worker, and its catch-up when the daemon stops.

Two projections are asynchronous, both kept in batches, never per commit:

- the stream catalogue, which no request path reads (the archive catches it up itself before
  choosing streams, ``Archiver.run``; ``projections rebuild --verify`` does the same before
  comparing): at most one pass every ``CATALOGUE_INTERVAL_S`` seconds, in pages of
  ``CATALOGUE_PAGE`` events. A delivery's three events (planned, admitted, outcome) then
  usually fall in one page and become one catalogue row written once, instead of an insert and
  two updates as separate commits (bench/README.md "Session 6");
- the attempt statistics (``projections/attempt_stats.py``), which ``attempt-stats`` reads:
  a pass every ``Settings.stats_interval_s`` (5 s by default), so the counts are at most that
  far behind; each pass changes each (subscription, hour, outcome) row once, however many
  attempts it folds (bench/README.md "Session 8").

A graceful stop still brings them to the committed head.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence

import structlog

from hookproof.events import EventStore
from hookproof.projections import Projection, Projector

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
#: events per page (one transaction, one merge statement); headers only, ~100 bytes each
CATALOGUE_PAGE = 20_000
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
            *(p.run(stop, poll_interval=every, min_interval=every) for every, p in self.projectors)
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
