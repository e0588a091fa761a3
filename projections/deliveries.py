"""The delivery ledger fold and its inline projection (``deliveries``: the dispatch queue).

One row per delivery holds its whole current state, so the incremental path (load row, evolve,
upsert) and a rebuild (fold in memory, COPY) compute the same rows from the same ``evolve``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Final

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
    delivery_id_of,
)

from .base import Projection, Row
from .ledger import LEDGER_STATES, LedgerState, step

__all__ = ["LEDGER_STATES", "DeliveryLedger", "evolve_delivery"]


_ts = datetime.fromisoformat

Apply = Callable[[Row, Row, Any], None]  # (new row, old row, event): carries the fields


def _admitted(new: Row, row: Row, event: AttemptAdmitted) -> None:
    new["attempt"] = event.attempt
    new["lease_owner"] = event.dispatcher
    new["lease_until"] = _ts(event.lease_until)
    new["next_attempt_at"] = None
    new["updated_at"] = _ts(event.at)


def _accepted(new: Row, row: Row, event: EndpointAccepted) -> None:
    at = _ts(event.at)
    new["last_status"] = event.status
    new["last_code"] = None
    new["lease_owner"] = None
    new["lease_until"] = None
    new["unknown_since"] = None
    new["accepted_at"] = row["accepted_at"] or at
    new["updated_at"] = at


def _failed(new: Row, row: Row, event: AttemptFailed) -> None:
    at = _ts(event.at)
    new["last_code"] = event.code
    new["last_status"] = event.status
    new["location"] = event.location
    new["next_attempt_at"] = _ts(event.retry_at)
    new["lease_owner"] = None
    new["lease_until"] = None
    new["unknown_since"] = (
        row["unknown_since"] or at if new["state"] == LedgerState.UNKNOWN_TRANSPORT else None
    )
    new["updated_at"] = at


def _failed_late(new: Row, row: Row, event: AttemptFailed) -> None:
    """Late failure evidence on an accepted or confirmed delivery: it stays as it is."""
    new["updated_at"] = _ts(event.at)
    new["lease_owner"] = None
    new["lease_until"] = None


def _lost(new: Row, row: Row, event: AttemptLost) -> None:
    at = _ts(event.at)
    new["last_code"] = "dispatcher_lost"
    new["next_attempt_at"] = _ts(event.retry_at)
    new["lease_owner"] = None
    new["lease_until"] = None
    new["unknown_since"] = row["unknown_since"] or at
    new["updated_at"] = at


def _dead_lettered(new: Row, row: Row, event: DeadLettered) -> None:
    new["owner"] = event.owner
    new["dead_letter_reason"] = event.reason
    new["next_attempt_at"] = None
    new["lease_owner"] = None
    new["lease_until"] = None
    new["updated_at"] = _ts(event.at)


def _touched(new: Row, row: Row, event: DeadLettered | ReceiptConflict) -> None:
    """Evidence only (a refused receipt; a dead letter after a confirmation)."""
    new["updated_at"] = _ts(event.at)


def _quarantined(new: Row, row: Row, event: DeliveryQuarantined) -> None:
    new["last_code"] = event.reason
    new["next_attempt_at"] = None
    new["updated_at"] = _ts(event.at)


def _replayed(new: Row, row: Row, event: DeliveryReplayRequested) -> None:
    at = _ts(event.at)
    new["next_attempt_at"] = at
    new["dead_letter_reason"] = None
    new["max_attempts"] = row["attempt"] + 1  # one more attempt, same identity
    new["updated_at"] = at


def _confirmed(new: Row, row: Row, event: ApplicationConfirmed) -> None:
    at = _ts(event.at)
    new["application"] = "CONFIRMED"
    new["next_attempt_at"] = None
    new["unknown_since"] = None
    new["confirmed_at"] = at
    new["updated_at"] = at


def _gap_skipped(new: Row, row: Row, event: OrderingGapSkipped) -> None:
    new["gap_skipped"] = True
    new["updated_at"] = _ts(event.at)


def _skipped(new: Row, row: Row, event: DeliverySkipped) -> None:
    new["next_attempt_at"] = None
    new["lease_owner"] = None
    new["lease_until"] = None
    new["updated_at"] = _ts(event.at)


def _planned(new: Row, row: Row, event: DeliveryPlanned) -> None:
    raise AssertionError("the table allows plan only on an absent delivery")


#: The field writer of each delivery event type, on the ledger's ordinary rows.
_APPLY: Final[dict[type[Event], Apply]] = {
    DeliveryPlanned: _planned,
    AttemptAdmitted: _admitted,
    EndpointAccepted: _accepted,
    AttemptFailed: _failed,
    AttemptLost: _lost,
    DeadLettered: _dead_lettered,
    DeliveryQuarantined: _quarantined,
    DeliveryReplayRequested: _replayed,
    ApplicationConfirmed: _confirmed,
    OrderingGapSkipped: _gap_skipped,
    DeliverySkipped: _skipped,
    ReceiptConflict: _touched,
}
#: ... and on the rows the table marks evidence-only (``ledger.EVIDENCE_ONLY``).
_EVIDENCE: Final[dict[type[Event], Apply]] = {
    AttemptFailed: _failed_late,
    DeadLettered: _touched,
    ReceiptConflict: _touched,
}


def evolve_delivery(row: Row | None, event: Event, version: int, *, reuse: bool = False) -> Row:
    """The ledger row after one event of the delivery stream. Pure unless ``reuse``: a fold
    that owns ``row`` (a rebuild) may let it be updated in place instead of copied.

    The next state comes from the ledger table through :func:`.ledger.step`, the lookup
    :func:`.ledger.transition` makes (it refuses an event the table does not allow); this
    function carries the fields."""
    src = None if row is None else row["state"]
    _command, state, evidence = step(src, event)
    if row is None:  # the table allows only ``plan`` on an absent delivery
        assert isinstance(event, DeliveryPlanned)
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
    new = row if reuse else row.copy()
    new["stream_version"] = version
    new["state"] = state
    (_EVIDENCE if evidence else _APPLY)[type(event)](new, row, event)
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
    inline = True

    def key(self, event: RecordedEvent) -> str | None:
        sid = event.stream_id
        return delivery_id_of(sid)

    def evolve(self, row: Row | None, event: RecordedEvent) -> Row:
        return evolve_delivery(row, event.decode(), event.stream_version)

    def evolve_owned(self, row: Row | None, event: RecordedEvent) -> Row:
        """``evolve`` for a fold that owns its rows (rebuild): no copy per event."""
        return evolve_delivery(row, event.decode(), event.stream_version, reuse=True)
