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
from typing import Final

import structlog

from ..egress.failures import Outcome
from .destination import Completed, Destination, Evidence, PendingAttempt, send_attempt

__all__ = ["ATTEMPT_MARGIN_S", "PARKED_PER_INFLIGHT", "PARK_AFTER_S", "send_bounded"]

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
