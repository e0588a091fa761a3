"""Ordered delivery per aggregate (``ordering: "aggregate"``), the part decided in Python.

The claim query (``dispatch_claim.sql``) admits the first attempt of an ordered delivery of
version ``v`` only when every earlier version of its aggregate known for that subscription is
in a state of the ledger's ``ORDER_RELEASING`` (ENDPOINT_ACCEPTED or later, SKIPPED or
QUARANTINED: the list in migration 0651 is checked against it by a test), and either
``v - 1`` is known, ``v <= 1`` (versions count from 1), the gap was skipped before, or the
delivery has waited its ``orderingGapTimeoutS``. That last case is a gap to record: this
module names it, and the claim appends ``delivery.ordering_gap_skipped`` before the admission,
in the same transaction. Retries (attempt > 0) are never held: their turn came already.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from .admission import ClaimRow

__all__ = ["Gap", "gap_to_skip"]


@dataclass(frozen=True)
class Gap:
    missing_from: int
    missing_to: int
    waited_s: float


def gap_to_skip(row: ClaimRow, now: datetime) -> Gap | None:
    """The missing versions an admitted ordered first attempt goes on without, if any."""
    version = row.aggregate_version
    if row.ordering_gap_timeout_s is None or version is None:
        return None
    if row.attempt != 0 or row.gap_skipped:
        return None
    below = row.ordered_below
    if version <= 1 or (below is not None and below >= version - 1):
        return None
    first = 1 if below is None else below + 1
    waited = (now - row.created_at).total_seconds() if row.created_at is not None else 0.0
    return Gap(first, version - 1, max(0.0, waited))
