"""What one tenant's relays may cost (issue 46): a token bucket per tenant for report frames
and one per session for the warning lines they cause. Pure (the clock is passed in).

A relay reports once per exchange the engine sent it, so an honest relay stays far below the
budget; frames beyond it are dropped unread and counted, never decoded, written or logged one
by one."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from ..common.budget import Bucket

__all__ = ["LOG_BURST", "LOG_PER_S", "REPORTS_PER_S", "REPORT_BURST", "SessionBudget"]

#: report frames a tenant's relays may send per second (over all its sessions), and at once
REPORTS_PER_S: Final = 50.0
REPORT_BURST: Final = 200.0
#: warning lines one session may cause per second, and at once (the rest are counted)
LOG_PER_S: Final = 0.5
LOG_BURST: Final = 10.0


@dataclass(slots=True)
class SessionBudget:
    """One session's counts: frames taken, dropped over the tenant's budget, and warning
    lines left out (the next line that is written says how many)."""

    tenant_id: str
    taken: int = 0
    dropped: int = 0
    suppressed: int = 0
    logs: Bucket = field(default_factory=lambda: Bucket(LOG_PER_S, LOG_BURST))

    def may_log(self, now: float) -> bool:
        if self.logs.take(now):
            return True
        self.suppressed += 1
        return False
