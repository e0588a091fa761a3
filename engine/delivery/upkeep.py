"""Ledger upkeep: the claim's index kept free of dead entries while the dispatcher runs.

An admission moves its row out of the partial due index (``deliveries_due``), but the index
entry stays, pointing at a dead row version, until a vacuum removes it. The entries sit where
the claim starts reading (the oldest ``next_attempt_at``), so every claim steps over all of
them: measured ~10,000 per claim at half the peak rate, most of the claim's cost
(bench/HISTORY.md, Session 5). Autovacuum comes too seldom for a queue (a database at most once
a minute, a table after 20% of it changed), so the first worker's dispatcher vacuums the table
itself once enough row versions died (:func:`vacuum_due`: a pure rule over the statistics).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable

import structlog

from .repository import DeliveryRepository

__all__ = ["LedgerUpkeep", "vacuum_due"]

log = structlog.get_logger("hookproof.dispatcher")

#: dead row versions that make a vacuum worth it: at least this many...
VACUUM_MIN_DEAD = 4000
#: ...and at least this share of the live rows (a vacuum reads every index whole)
VACUUM_DEAD_FRACTION = 0.02
CHECK_EVERY_S = 1.0


def vacuum_due(
    dead: int, live: int, *, min_dead: int = VACUUM_MIN_DEAD, fraction: float = VACUUM_DEAD_FRACTION
) -> bool:
    """Whether the ledger table's dead row versions are worth a vacuum now."""
    return dead >= max(min_dead, fraction * live)


class LedgerUpkeep:
    def __init__(
        self,
        deliveries: DeliveryRepository,
        *,
        check_every_s: float = CHECK_EVERY_S,
        due: Callable[[int, int], bool] = vacuum_due,
    ) -> None:
        self.deliveries = deliveries
        self.check_every_s = check_every_s
        self.due = due
        self.vacuums = 0
        # dead row versions the last vacuum could not remove (an old snapshot holds them, or
        # another vacuum ran): only those that died since count towards the next one
        self._left = 0

    async def once(self) -> bool:
        """Vacuum the ledger table if :func:`vacuum_due` says so. Returns whether it did."""
        dead, live = await self.deliveries.dead_rows()
        self._left = min(self._left, dead)  # another vacuum removed some of them since
        if not self.due(dead - self._left, live):
            return False
        started = time.monotonic()
        await self.deliveries.vacuum()
        self.vacuums += 1
        self._left = (await self.deliveries.dead_rows())[0]
        log.info(
            "ledger_vacuumed",
            dead=dead,
            live=live,
            left=self._left,
            ms=round((time.monotonic() - started) * 1000, 1),
        )
        return True

    async def run(self, stop: asyncio.Event) -> None:
        """Check every ``check_every_s`` until ``stop``; returns at once, saying so, when this
        role may not vacuum the ledger table (its VACUUM would only warn and skip the table)."""
        try:
            allowed = await self.deliveries.can_vacuum()
        except Exception as exc:  # the database restarting: assume allowed, VACUUM will say
            log.warning("ledger_upkeep_failed", error=type(exc).__name__)
            allowed = True
        if not allowed:
            log.warning("ledger_upkeep_off", reason="not_table_owner")
            return
        while not stop.is_set():
            try:
                await self.once()
            except Exception as exc:  # the database restarting: try again on the next check
                log.warning("ledger_upkeep_failed", error=type(exc).__name__)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.check_every_s)
