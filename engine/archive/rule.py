"""When is a stream closed? The pure rule of retention (no I/O, no clock: ``now`` is given).

The unit of archival is the closed stream, never a time slice through open ones, so
``UNIQUE (stream_id, stream_version)`` and every expected version stay exact:

- a delivery is closed when it is terminal (ENDPOINT_ACCEPTED, APPLICATION_CONFIRMED,
  DEAD_LETTER, QUARANTINED, SKIPPED), its last change is older than the cutoff, and it is past the
  windows in which it could still move: the receipt window for an ENDPOINT_ACCEPTED delivery
  that has the receipt contract, the replay window for a dead-lettered or quarantined one;
- a business event is closed when its own last change is older than the cutoff and every one
  of its deliveries is closed (or already archived);
- every other stream (subscriptions, keys, tenants, receipts, the archive's own anchors) is
  kept hot: their number grows with subscriptions and keys, not with traffic, and fencing,
  the key ring and the gates read them live.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from hookproof.projections import ledger

__all__ = [
    "OPEN_DELIVERY_STATES",
    "TERMINAL_DELIVERY_STATES",
    "DeliveryFacts",
    "RetentionPolicy",
    "Verdict",
    "delivery_verdict",
    "event_verdict",
    "stream_verdict",
]

# the ledger table's subsets (projections/ledger.py), never a copy
TERMINAL_DELIVERY_STATES = ledger.TERMINAL
OPEN_DELIVERY_STATES = ledger.OPEN
#: may still move by a receipt window's redelivery / by an operator's replay
_REDELIVERABLE = ledger.sources("redeliver")
_REPLAYABLE = ledger.sources("replay")
ARCHIVABLE_CATEGORIES = frozenset({"delivery", "event"})


@dataclass(frozen=True)
class RetentionPolicy:
    """The cutoff (archive what last changed before it) and the windows, at a moment ``now``."""

    cutoff: datetime
    now: datetime
    receipt_window: timedelta
    replay_window: timedelta


@dataclass(frozen=True)
class Verdict:
    closed: bool
    reason: str  # "closed" or why the stream stays hot

    def __bool__(self) -> bool:
        return self.closed


CLOSED = Verdict(True, "closed")


@dataclass(frozen=True)
class DeliveryFacts:
    """What the rule needs to know about a delivery (from its ledger row)."""

    state: str
    receipts: bool
    last_change: datetime


def delivery_verdict(d: DeliveryFacts, policy: RetentionPolicy) -> Verdict:
    if d.state not in TERMINAL_DELIVERY_STATES:
        return Verdict(False, "in_flight")
    if d.last_change >= policy.cutoff:
        return Verdict(False, "newer_than_cutoff")
    if (
        d.state in _REDELIVERABLE
        and d.receipts
        and d.last_change > policy.now - policy.receipt_window
    ):
        return Verdict(False, "receipt_window")
    if d.state in _REPLAYABLE and d.last_change > policy.now - policy.replay_window:
        return Verdict(False, "replay_window")
    return CLOSED


def event_verdict(
    last_change: datetime,
    deliveries: Iterable[Verdict | None],
    policy: RetentionPolicy,
) -> Verdict:
    """A business event; ``deliveries`` holds one verdict per delivery it planned (None: the
    delivery is already archived, which counts as closed)."""
    if last_change >= policy.cutoff:
        return Verdict(False, "newer_than_cutoff")
    for v in deliveries:
        if v is not None and not v.closed:
            return Verdict(False, "deliveries_open")
    return CLOSED


def stream_verdict(category: str) -> Verdict | None:
    """None for the categories the rule above decides; a "kept hot" verdict for the others
    (a subscription or key stream is never archived while the engine may still read it)."""
    if category in ARCHIVABLE_CATEGORIES:
        return None
    return Verdict(False, "kept_hot")
