"""An ingested event's own checks and canonical form (pure): ids, topic, version, aggregate,
time and consumer id, and the body every delivery of it carries."""

from __future__ import annotations

import re

from msgspec import UNSET

from hookproof.errors import ValidationError
from hookproof.events.canonical import canonical_json
from hookproof.events.delivery_events import EVENT_ID
from hookproof.schemas.api import EventIn

from ..consumers.service import check_consumer_id
from ..subscriptions.validation import parse_time, printable

__all__ = ["canonical_body", "topic_patterns", "validate_event"]

_ID = EVENT_ID
_VERSION = re.compile(r"^(0|[1-9][0-9]{0,4})\.(0|[1-9][0-9]{0,4})$")


def canonical_body(e: EventIn, occurred_at: str | None = None) -> bytes:
    """What every delivery of ``e`` carries; ``occurred_at``: the engine's time for an event
    whose sender set none (``e.occurred_at`` otherwise)."""
    if occurred_at is None:
        if e.occurred_at is UNSET:
            raise ValueError("an event without occurredAt needs the time it was accepted")
        occurred_at = e.occurred_at
    return canonical_json(
        {
            "type": e.topic,
            "eventId": e.event_id,
            "version": e.version,
            "aggregateId": e.aggregate_id,
            "aggregateVersion": e.aggregate_version,
            "occurredAt": occurred_at,
            "payload": e.payload,
        }
    )


def topic_patterns(topic: str) -> list[str]:
    parts = topic.split(".")
    return [topic, "*", *(".".join(parts[:i]) + ".*" for i in range(1, len(parts)))]


def validate_event(e: EventIn) -> int:
    if not _ID.fullmatch(e.event_id):
        raise ValidationError("eventId must be 1..200 of [A-Za-z0-9._:-]", field="eventId")
    if not e.topic or len(e.topic) > 200 or "*" in e.topic or not printable(e.topic):
        raise ValidationError("topic must be 1..200 characters without '*'", field="topic")
    m = _VERSION.fullmatch(e.version)
    if not m:
        raise ValidationError('version must be "MAJOR.MINOR"', field="version")
    if not e.aggregate_id or len(e.aggregate_id) > 200 or not printable(e.aggregate_id):
        raise ValidationError("aggregateId must be 1..200 characters", field="aggregateId")
    if e.aggregate_version < 0 or e.aggregate_version > 2**62:
        raise ValidationError(
            "aggregateVersion must be a non-negative integer", field="aggregateVersion"
        )
    if e.occurred_at is not UNSET:
        parse_time(e.occurred_at, "occurredAt")
    if e.consumer_id is not None:
        check_consumer_id(e.consumer_id, "consumerId")
    return int(m.group(1))
