"""One reading of a delivery's stream (``delivery-<id>``): its story, a frozen typed value.

The story holds the ledger state after the stream (the same :func:`.deliveries.evolve_delivery`
the ``deliveries`` projection runs, as a typed :class:`Ledger`), every admitted attempt with
what was sent (its admission and the recorded part of its request), what came back and the
outcome (every outcome recorded for it, in order: late evidence may add more than one), the
application receipt, refused receipts, ordering gaps skipped, and the operators' commands.

The delivery view (``engine/delivery/story_view.py``), the audit timeline
(``engine/audit/timeline.py``) and, through them, the console and the portal render this
value; none of them reads a delivery's events another way. :func:`tell` is the fold's step
(the timeline renders the story after each event), :func:`read_story` the whole fold. Pure:
no I/O, and an event the ledger table does not allow is refused
(:class:`~.ledger.LedgerTransitionForbidden`), as by the projection.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from datetime import datetime
from typing import Final, TypeAlias

from hookproof.events import Event
from hookproof.events.delivery_events import (
    ApplicationConfirmed,
    AttemptAdmitted,
    AttemptFailed,
    AttemptLost,
    AttemptRequest,
    DeadLettered,
    DeliveryPlanned,
    DeliveryQuarantined,
    DeliveryReplayRequested,
    DeliverySkipped,
    EndpointAccepted,
    OrderingGapSkipped,
    ReceiptConflict,
)

from .base import Row
from .deliveries import evolve_delivery
from .ledger import LedgerState

__all__ = [
    "Attempt",
    "DeliveryStory",
    "Ledger",
    "Outcome",
    "read_story",
    "tell",
]

#: What came back to one attempt: an acceptance, a failure (RETRYABLE or UNKNOWN_TRANSPORT),
#: or its dispatcher's lease running out with it in flight.
Outcome: TypeAlias = EndpointAccepted | AttemptFailed | AttemptLost


@dataclass(frozen=True, slots=True)
class Ledger:
    """The ledger row of the delivery (the ``deliveries`` projection's columns, same order)."""

    delivery_id: str
    event_id: str
    subscription_id: str
    tenant_id: str
    generation: int
    endpoint: str
    endpoint_digest: str
    payload_digest: str
    topic: str
    owner: str
    receipts: bool
    max_attempts: int
    state: str
    attempt: int
    next_attempt_at: datetime | None
    lease_owner: str | None
    lease_until: datetime | None
    last_code: str | None
    last_status: int | None
    location: str | None
    dead_letter_reason: str | None
    application: str
    unknown_since: datetime | None
    accepted_at: datetime | None
    confirmed_at: datetime | None
    stream_version: int
    created_at: datetime
    updated_at: datetime
    aggregate_id: str | None
    aggregate_version: int | None
    ordering_gap_timeout_s: float | None
    gap_skipped: bool

    @classmethod
    def of_row(cls, row: Row) -> Ledger:
        return cls(**row)

    def row(self) -> Row:
        """The ledger row as the projection holds it (a new dict, the columns in order)."""
        return {name: getattr(self, name) for name in _LEDGER_FIELDS}


_LEDGER_FIELDS: Final = tuple(f.name for f in fields(Ledger))


@dataclass(frozen=True, slots=True)
class Attempt:
    """One admitted attempt: what was decided and signed (``admitted``: the endpoint, the
    generation, the key, the dispatcher) and every outcome recorded for it, in order."""

    admitted: AttemptAdmitted
    outcomes: tuple[Outcome, ...] = ()

    @property
    def number(self) -> int:
        return self.admitted.attempt

    @property
    def outcome(self) -> Outcome | None:
        """The outcome recorded last (None: still in flight)."""
        return self.outcomes[-1] if self.outcomes else None

    @property
    def state(self) -> str:
        """The ledger state this attempt's last outcome stands for: DISPATCHING (none yet),
        ENDPOINT_ACCEPTED, RETRYABLE or UNKNOWN_TRANSPORT."""
        last = self.outcome
        if last is None:
            return LedgerState.DISPATCHING.value
        if isinstance(last, EndpointAccepted):
            return LedgerState.ENDPOINT_ACCEPTED.value
        if isinstance(last, AttemptFailed):
            return last.outcome
        return LedgerState.UNKNOWN_TRANSPORT.value

    @property
    def request(self) -> AttemptRequest | None:
        """What of the request cannot be rebuilt, as recorded with its latest outcome that
        recorded it (None: lost with its dispatcher, or sent before it was recorded)."""
        for out in reversed(self.outcomes):
            if not isinstance(out, AttemptLost) and isinstance(out.request, AttemptRequest):
                return out.request
        return None

    @property
    def broker_refusal(self) -> str | None:
        """A broker's own words on refusing this attempt (its latest failure that has them)."""
        for out in reversed(self.outcomes):
            if isinstance(out, AttemptFailed) and isinstance(out.broker, dict):
                return str(out.broker.get("detail") or "")
        return None


@dataclass(frozen=True, slots=True)
class DeliveryStory:
    """Everything a delivery's stream says, read once (see the module's docstring)."""

    planned: DeliveryPlanned
    ledger: Ledger
    #: the admitted attempts, by number
    attempts: tuple[Attempt, ...] = ()
    #: the application receipt that confirmed it (the latest, should more than one be recorded)
    confirmation: ApplicationConfirmed | None = None
    #: receipts quarantined: their payload digest is not the delivered one
    conflicts: tuple[ReceiptConflict, ...] = ()
    #: ordered delivery: the missing versions it went on without
    gaps: tuple[OrderingGapSkipped, ...] = ()
    dead_letters: tuple[DeadLettered, ...] = ()
    quarantines: tuple[DeliveryQuarantined, ...] = ()
    #: an operator's replay, or a redelivery when no receipt came in time
    replays: tuple[DeliveryReplayRequested, ...] = ()
    skipped: DeliverySkipped | None = None
    #: outcomes naming an attempt that was never admitted (shown nowhere; kept, not lost)
    unmatched: tuple[Outcome, ...] = ()
    #: the event read last (the one a timeline line describes)
    last: Event | None = None

    @property
    def last_attempt(self) -> Attempt | None:
        """The attempt admitted last (None: never attempted)."""
        return self.attempts[-1] if self.attempts else None

    @property
    def broker_refusal(self) -> str | None:
        """The broker's words on the refusal of the latest attempt a broker refused."""
        for a in reversed(self.attempts):
            said = a.broker_refusal
            if said is not None:
                return said
        return None


def _admit(attempts: tuple[Attempt, ...], ev: AttemptAdmitted) -> tuple[Attempt, ...]:
    """The attempts with ``ev``'s (a number admitted again starts over), by number."""
    kept = [a for a in attempts if a.number != ev.attempt]
    kept.append(Attempt(ev))
    return tuple(sorted(kept, key=lambda a: a.number))


def _answered(story: DeliveryStory, ev: Outcome) -> DeliveryStory:
    attempts = story.attempts
    for i, a in enumerate(attempts):
        if a.number == ev.attempt:
            done = replace(a, outcomes=(*a.outcomes, ev))
            return replace(story, attempts=(*attempts[:i], done, *attempts[i + 1 :]))
    return replace(story, unmatched=(*story.unmatched, ev))


def _chapter(story: DeliveryStory, ev: Event) -> DeliveryStory:
    """What ``ev`` adds to the story beside the ledger."""
    if isinstance(ev, AttemptAdmitted):
        return replace(story, attempts=_admit(story.attempts, ev))
    if isinstance(ev, (EndpointAccepted, AttemptFailed, AttemptLost)):
        return _answered(story, ev)
    if isinstance(ev, ApplicationConfirmed):
        return replace(story, confirmation=ev)
    if isinstance(ev, ReceiptConflict):
        return replace(story, conflicts=(*story.conflicts, ev))
    if isinstance(ev, OrderingGapSkipped):
        return replace(story, gaps=(*story.gaps, ev))
    if isinstance(ev, DeadLettered):
        return replace(story, dead_letters=(*story.dead_letters, ev))
    if isinstance(ev, DeliveryQuarantined):
        return replace(story, quarantines=(*story.quarantines, ev))
    if isinstance(ev, DeliveryReplayRequested):
        return replace(story, replays=(*story.replays, ev))
    if isinstance(ev, DeliverySkipped):
        return replace(story, skipped=ev)
    return story


def tell(story: DeliveryStory | None, event: Event, version: int) -> DeliveryStory:
    """The story after ``event`` (stream version ``version``); ``story`` None: the stream's
    first event, which the ledger table allows only to be ``delivery.planned``."""
    # ``row()`` is a new dict, owned here: the fold may update it in place
    row = evolve_delivery(None if story is None else story.ledger.row(), event, version, reuse=True)
    if story is None:
        assert isinstance(event, DeliveryPlanned)  # evolve_delivery refused anything else
        return DeliveryStory(planned=event, ledger=Ledger.of_row(row), last=event)
    after = _chapter(story, event)
    return replace(after, ledger=Ledger.of_row(row), last=event)


def read_story(events: Iterable[tuple[Event, int]]) -> DeliveryStory | None:
    """The story of a stream given as ``(event, stream version)`` pairs (None: no events)."""
    story: DeliveryStory | None = None
    for event, version in events:
        story = tell(story, event, version)
    return story
