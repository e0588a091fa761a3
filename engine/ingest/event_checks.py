"""An ingested event's own checks and canonical form (pure): ids, topic, version, aggregate,
time, consumer id, CloudEvents source and extensions, and the body every delivery of it
carries."""

from __future__ import annotations

import re

from msgspec import UNSET

from hookproof.errors import ValidationError
from hookproof.events.canonical import canonical_json
from hookproof.events.delivery_events import EVENT_ID
from hookproof.schemas.api import (
    EVENT_VERSION_PATTERN,
    EXTENSION_NAME_PATTERN,
    MAX_EXTENSIONS,
    URI_REFERENCE_PATTERN,
    EventIn,
)

from ..consumers.service import check_consumer_id
from ..subscriptions.validation import parse_time, printable

__all__ = [
    "EXTENSION_NAME",
    "MAX_EXTENSIONS",
    "NOT_EXTENSIONS",
    "canonical_body",
    "topic_patterns",
    "validate_event",
]

_ID = EVENT_ID
_VERSION = re.compile(EVENT_VERSION_PATTERN)
#: a URI-reference (RFC 3986): its characters only (no space, no control, ASCII)
_URI_REFERENCE = re.compile(URI_REFERENCE_PATTERN)
#: CloudEvents attribute names: a-z and 0-9 (the spec's MUST); up to 64 (it recommends 20)
EXTENSION_NAME = re.compile(EXTENSION_NAME_PATTERN)
_INT32 = (-(2**31), 2**31 - 1)
#: names that are CloudEvents context attributes, or extensions hookproof maps to its fields
NOT_EXTENSIONS = frozenset(
    {
        "specversion",
        "id",
        "source",
        "type",
        "subject",
        "time",
        "datacontenttype",
        "dataschema",
        "data",
        "data_base64",
        "aggregateversion",
        "eventversion",
        "consumerid",
    }
)


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
            # CloudEvents: only when given, so a plain event's body is what it always was
            **({"source": e.source} if e.source is not None else {}),
            **({"extensions": e.extensions} if e.extensions else {}),
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
    if e.source is not None and not _URI_REFERENCE.fullmatch(e.source):
        raise ValidationError(
            "source must be a URI-reference of 1..1024 characters", field="source"
        )
    if e.extensions:
        _check_extensions(e.extensions)
    return int(m.group(1))


def _check_extensions(extensions: dict[str, str | int | bool]) -> None:
    if len(extensions) > MAX_EXTENSIONS:
        raise ValidationError(f"at most {MAX_EXTENSIONS} extension attributes", field="extensions")
    for name, value in extensions.items():
        where = f"extensions.{name[:64]}"
        if not EXTENSION_NAME.fullmatch(name) or name in NOT_EXTENSIONS:
            raise ValidationError(
                "an extension name is 1..64 of [a-z0-9] and no context attribute", field=where
            )
        if isinstance(value, str) and (len(value) > 4096 or not printable(value)):
            raise ValidationError(
                "an extension string is at most 4096 printable characters", field=where
            )
        if type(value) is int and not _INT32[0] <= value <= _INT32[1]:
            raise ValidationError("an extension integer is a signed 32-bit integer", field=where)
