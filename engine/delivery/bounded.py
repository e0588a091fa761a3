"""What one attempt may hold of a dispatcher (issue 46: no destination holds another's work).

- :func:`send_bounded`: the time a worker gives one attempt is bounded (the lease less a
  margin); past it the attempt is UNKNOWN_TRANSPORT (``attempt_deadline``), recorded before the
  lease could expire, whatever the destination's own bounds did.
- :data:`PARK_AFTER_S`: an attempt still running after this long stops counting against the
  dispatcher's ``max_inflight`` and holds only its own endpoint's room (which the gates bound),
  so a destination that stalls at any step (a broker that never answers ``Channel.Open``)
  never holds the room other endpoints' work is claimed into; parked attempts are bounded too
  (``max_inflight`` times :data:`PARKED_PER_INFLIGHT`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any, Final

import structlog

from ..destinations.port import Completed, Destination, Evidence, PendingAttempt, send_attempt
from ..egress.failures import Outcome

__all__ = ["ATTEMPT_MARGIN_S", "PARKED_PER_INFLIGHT", "PARK_AFTER_S", "InFlight", "send_bounded"]

log = structlog.get_logger("hookproof.dispatcher")

PARK_AFTER_S: Final = 0.25
PARKED_PER_INFLIGHT: Final = 8
ATTEMPT_MARGIN_S: Final = 5.0


async def send_bounded(
    destination: Destination, pending: PendingAttempt, deadline_s: float
) -> Completed:
    """:func:`.destination.send_attempt` within ``deadline_s``; past it, lost (UNKNOWN)."""
    try:
        async with asyncio.timeout(deadline_s):
            return await send_attempt(destination, pending)
    except TimeoutError:
        r = pending.target
        log.warning(
            "attempt_deadline",
            delivery_id=r.delivery_id,
            subscription_id=r.subscription_id,
            deadline_s=deadline_s,
        )
        lost = Evidence(outcome=Outcome.UNKNOWN, code="attempt_deadline", request_written=True)
        return pending.sent().completed(lost, time.monotonic())


class InFlight:
    """A dispatcher's running attempts: ``tasks`` (all) and ``parked`` (running past
    :data:`PARK_AFTER_S`, not counted against ``max_inflight``, at most ``max_inflight`` times
    :data:`PARKED_PER_INFLIGHT`). ``on_room`` is called when a claim may find room again."""

    def __init__(self, max_inflight: int, on_room: Callable[[], None]) -> None:
        self.max_inflight = max_inflight
        self.max_parked = max_inflight * PARKED_PER_INFLIGHT
        self.park_after_s = PARK_AFTER_S
        self.tasks: set[asyncio.Task[None]] = set()
        self.parked: set[asyncio.Task[None]] = set()
        self._on_room = on_room

    @property
    def active(self) -> int:
        """Running attempts that count against ``max_inflight``."""
        return len(self.tasks) - len(self.parked)

    def room(self) -> int:
        """How many more attempts a claim may start now (0 while the parked are at their cap)."""
        if len(self.parked) >= self.max_parked:
            return 0
        return self.max_inflight - self.active

    def start(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self._done)
        asyncio.get_running_loop().call_later(self.park_after_s, self._park, task)

    def _park(self, task: asyncio.Task[None]) -> None:
        if task.done() or task not in self.tasks:
            return
        self.parked.add(task)
        self._on_room()

    def _done(self, task: asyncio.Task[None]) -> None:
        was_full = self.active >= self.max_inflight
        self.tasks.discard(task)
        self.parked.discard(task)
        if was_full:  # room for more sends again
            self._on_room()
