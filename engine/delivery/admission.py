"""The admission rule: may a claimed delivery get an attempt now? (Pure; no I/O.)

The ledger's transition table lives in :mod:`hookproof.projections.ledger` (the fold and this
rule share it); this module re-exports it for the engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Final

from hookproof.events.subscription_events import RetryPolicy, TransformationSpec
from hookproof.projections.ledger import (
    ADMITTING,
    LEDGER_TRANSITIONS,
    diagram,
    ledger_next,
)

from ..subscriptions.machine import ELIGIBLE, TERMINAL
from .retry import exhausted

__all__ = [
    "ADMITTING",
    "CLAIMABLE_SUBSCRIPTION_STATES",
    "LEDGER_TRANSITIONS",
    "Admit",
    "ClaimRow",
    "Exhausted",
    "Refuse",
    "admission",
    "claimable",
    "diagram",
    "ledger_next",
]

#: Subscription states in which the claim query returns a delivery of the current generation
#: (eligible ones are admitted, closed ones quarantined); any state for an older generation.
CLAIMABLE_SUBSCRIPTION_STATES: Final = ELIGIBLE | TERMINAL


@dataclass(frozen=True, slots=True)
class ClaimRow:
    """One row of ``dispatch_claim.sql``: the delivery and its subscription, locked."""

    delivery_id: str
    event_id: str
    tenant_id: str
    subscription_id: str
    generation: int
    endpoint: str
    endpoint_digest: str
    payload_digest: str
    owner: str
    state: str
    attempt: int
    max_attempts: int
    last_code: str | None
    stream_version: int
    sub_state: str
    sub_generation: int
    sub_version: int
    signature_algorithm: str
    signature_profile: str
    old_generation_policy: str
    retry_policy: RetryPolicy
    #: ordered delivery (``ordering: "aggregate"`` at planning); None/False otherwise
    aggregate_id: str | None = None
    aggregate_version: int | None = None
    ordering_gap_timeout_s: float | None = None
    gap_skipped: bool = False
    ordered_below: int | None = None  # the highest earlier version known (first attempts)
    created_at: datetime | None = None
    #: the hash of the stream's event at ``stream_version`` (None: not found, read it again)
    head_hash: bytes | None = None
    #: the subscription's delivery format (``engine/delivery/formats.py``)
    format: str = "hookproof"
    #: the subscription's transformation, for a row of its current generation (DESIGN.md 17)
    transformation: TransformationSpec | None = None


@dataclass(frozen=True, slots=True)
class Admit:
    drain: bool = False  # an earlier generation's admitted delivery, draining to its endpoint


@dataclass(frozen=True, slots=True)
class Refuse:
    reason: str  # subscription_closed | stale_generation: quarantined


@dataclass(frozen=True, slots=True)
class Exhausted:
    reason: str  # exhausted:<last code>: dead-lettered without another attempt


def claimable(row: ClaimRow) -> bool:
    """The claim query's filter, as a rule (a test checks the query against it)."""
    return row.state in ADMITTING and (
        row.sub_state in CLAIMABLE_SUBSCRIPTION_STATES or row.generation != row.sub_generation
    )


def admission(row: ClaimRow) -> Admit | Refuse | Exhausted:
    """What a claimed row gets, decided against the subscription row read ``FOR SHARE`` in the
    admitting transaction (the fencing check). ``row`` must be :func:`claimable`."""
    if not claimable(row):
        raise ValueError(f"delivery {row.delivery_id} is not claimable")
    if row.sub_state in TERMINAL:
        return Refuse("subscription_closed")
    if row.generation != row.sub_generation and not (
        # an older generation: only deliveries already admitted before may drain, by policy
        row.attempt >= 1 and row.old_generation_policy == "drain" and row.sub_state != "SUSPENDED"
    ):
        return Refuse("stale_generation")
    # whatever ended the previous attempt (a failure, a lost lease), the limit holds
    if row.attempt >= 1 and exhausted(row.attempt, row.max_attempts):
        return Exhausted(f"exhausted:{row.last_code or 'unknown'}")
    return Admit(drain=row.generation != row.sub_generation)
