"""The delivery ledger fold and its inline projection (``deliveries``: the dispatch queue).

One row per delivery holds its whole current state, so the incremental path (load row, evolve,
upsert) and a rebuild (fold in memory, COPY) compute the same rows from the same ``evolve``.
"""

from __future__ import annotations

from datetime import datetime

from hookproof.events import Event, RecordedEvent
from hookproof.events.delivery_events import (
    ApplicationConfirmed,
    AttemptAdmitted,
    AttemptFailed,
    AttemptLost,
    DeadLettered,
    DeliveryPlanned,
    DeliveryQuarantined,
    DeliveryReplayRequested,
    DeliverySkipped,
    EndpointAccepted,
    OrderingGapSkipped,
    ReceiptConflict,
)

from .base import Projection, Row
from .ledger import (
    ABSENT,
    EVENT_COMMANDS,
    LEDGER_STATES,
    LEDGER_TRANSITIONS,
    LedgerTransitionForbidden,
    command_of,
)

__all__ = ["LEDGER_STATES", "DeliveryLedger", "evolve_delivery"]


# LEDGER_TRANSITIONS by (state, event type) for the types that are always one command
_BY_TYPE = {
    (src, kind): dst
    for kind, command in EVENT_COMMANDS.items()
    for (src, cmd), dst in LEDGER_TRANSITIONS.items()
    if cmd == command
}


def _ts(text: str) -> datetime:
    return datetime.fromisoformat(text)


def evolve_delivery(row: Row | None, event: Event, version: int, *, reuse: bool = False) -> Row:
    """The ledger row after one event of the delivery stream. Pure unless ``reuse``: a fold
    that owns ``row`` (a rebuild) may let it be updated in place instead of copied.

    The next state comes from the ledger table (as :func:`.ledger.transition` reads it),
    which refuses an event the table does not allow; this function carries the fields."""
    src = ABSENT if row is None else row["state"]
    state = _BY_TYPE.get((src, type(event)))  # the table, keyed by event type where it can be
    if state is None:
        command = command_of(event)
        state = LEDGER_TRANSITIONS.get((src, command))
        if state is None:
            raise LedgerTransitionForbidden(src, command)
    if isinstance(event, DeliveryPlanned):
        at = _ts(event.at)
        return {
            "delivery_id": event.delivery_id,
            "event_id": event.event_id,
            "subscription_id": event.subscription_id,
            "tenant_id": event.tenant_id,
            "generation": event.generation,
            "endpoint": event.endpoint,
            "endpoint_digest": event.endpoint_digest,
            "payload_digest": event.payload_digest,
            "topic": event.topic,
            "owner": event.owner,
            "receipts": event.receipts,
            "max_attempts": event.max_attempts,
            "state": state,
            "attempt": 0,
            "next_attempt_at": at,
            "lease_owner": None,
            "lease_until": None,
            "last_code": None,
            "last_status": None,
            "location": None,
            "dead_letter_reason": None,
            "application": "PENDING" if event.receipts else "UNOBSERVABLE",
            "unknown_since": None,
            "accepted_at": None,
            "confirmed_at": None,
            "stream_version": version,
            "created_at": at,
            "updated_at": at,
            "aggregate_id": event.aggregate_id,
            "aggregate_version": event.aggregate_version,
            "ordering_gap_timeout_s": event.ordering_gap_timeout_s,
            "gap_skipped": False,
        }
    assert row is not None  # the table allows only ``plan`` on an absent delivery
    new = row if reuse else dict(row)
    new["stream_version"] = version
    new["state"] = state
    if isinstance(event, AttemptAdmitted):
        new.update(
            attempt=event.attempt,
            lease_owner=event.dispatcher,
            lease_until=_ts(event.lease_until),
            next_attempt_at=None,
            updated_at=_ts(event.at),
        )
    elif isinstance(event, EndpointAccepted):
        new.update(
            last_status=event.status,
            last_code=None,
            lease_owner=None,
            lease_until=None,
            unknown_since=None,
            accepted_at=row["accepted_at"] or _ts(event.at),
            updated_at=_ts(event.at),
        )
    elif isinstance(event, AttemptFailed):
        if state == "APPLICATION_CONFIRMED":  # late: the receipt came first
            new.update(updated_at=_ts(event.at), lease_owner=None, lease_until=None)
            return new
        new.update(
            last_code=event.code,
            last_status=event.status,
            location=event.location,
            next_attempt_at=_ts(event.retry_at),
            lease_owner=None,
            lease_until=None,
            unknown_since=(
                row["unknown_since"] or _ts(event.at) if state == "UNKNOWN_TRANSPORT" else None
            ),
            updated_at=_ts(event.at),
        )
    elif isinstance(event, AttemptLost):
        new.update(
            last_code="dispatcher_lost",
            next_attempt_at=_ts(event.retry_at),
            lease_owner=None,
            lease_until=None,
            unknown_since=row["unknown_since"] or _ts(event.at),
            updated_at=_ts(event.at),
        )
    elif isinstance(event, DeadLettered):
        if state == "APPLICATION_CONFIRMED":  # late: a confirmation outranks it
            new.update(updated_at=_ts(event.at))
            return new
        new.update(
            owner=event.owner,
            dead_letter_reason=event.reason,
            next_attempt_at=None,
            lease_owner=None,
            lease_until=None,
            updated_at=_ts(event.at),
        )
    elif isinstance(event, DeliveryQuarantined):
        new.update(
            last_code=event.reason,
            next_attempt_at=None,
            updated_at=_ts(event.at),
        )
    elif isinstance(event, DeliveryReplayRequested):
        new.update(
            next_attempt_at=_ts(event.at),
            dead_letter_reason=None,
            max_attempts=row["attempt"] + 1,  # one more attempt, same identity
            updated_at=_ts(event.at),
        )
    elif isinstance(event, ApplicationConfirmed):
        new.update(
            application="CONFIRMED",
            next_attempt_at=None,
            unknown_since=None,
            confirmed_at=_ts(event.at),
            updated_at=_ts(event.at),
        )
    elif isinstance(event, OrderingGapSkipped):
        new.update(gap_skipped=True, updated_at=_ts(event.at))
    elif isinstance(event, DeliverySkipped):
        new.update(
            next_attempt_at=None,
            lease_owner=None,
            lease_until=None,
            updated_at=_ts(event.at),
        )
    elif isinstance(event, ReceiptConflict):
        new.update(updated_at=_ts(event.at))
    return new


class DeliveryLedger(Projection):
    name = "deliveries"
    table = "deliveries"
    columns = (
        "delivery_id",
        "event_id",
        "subscription_id",
        "tenant_id",
        "generation",
        "endpoint",
        "endpoint_digest",
        "payload_digest",
        "topic",
        "owner",
        "receipts",
        "max_attempts",
        "state",
        "attempt",
        "next_attempt_at",
        "lease_owner",
        "lease_until",
        "last_code",
        "last_status",
        "location",
        "dead_letter_reason",
        "application",
        "unknown_since",
        "accepted_at",
        "confirmed_at",
        "stream_version",
        "created_at",
        "updated_at",
        "aggregate_id",
        "aggregate_version",
        "ordering_gap_timeout_s",
        "gap_skipped",
    )
    key_column = "delivery_id"
    categories = ("delivery",)

    def key(self, event: RecordedEvent) -> str | None:
        sid = event.stream_id
        return sid[9:] if sid.startswith("delivery-") else None

    def evolve(self, row: Row | None, event: RecordedEvent) -> Row:
        return evolve_delivery(row, event.decode(), event.stream_version)

    def evolve_owned(self, row: Row | None, event: RecordedEvent) -> Row:
        """``evolve`` for a fold that owns its rows (rebuild): no copy per event."""
        return evolve_delivery(row, event.decode(), event.stream_version, reuse=True)
