"""CloudEvents 1.0 in (DESIGN.md section 16), pure: a CloudEvent's attributes and data mapped
to the ingest input (:class:`EventIn`), or refused with the attribute named. The HTTP
binding's modes are read at the API edge (``api/cloudevents.py``).

``id`` -> eventId, ``type`` -> topic, ``subject`` -> aggregateId (absent: the id),
``time`` -> occurredAt (required: it is part of the signed body, so a repeat must carry the
same), extension ``aggregateversion`` -> aggregateVersion (absent: 0, no order: never held
by ordered delivery, applied once by id by the subscriber SDK's ``EventApplier``), extension
``eventversion`` -> version (absent: ``"1.0"``), extension ``consumerid`` -> consumerId,
``source`` and the other extensions kept, ``data`` -> payload (JSON only). ``dataschema``
and ``datacontenttype`` are checked, not kept.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from hookproof.errors import ValidationError
from hookproof.schemas.api import EventIn

from ..subscriptions.validation import printable
from .event_checks import EXTENSION_NAME, NOT_EXTENSIONS, validate_event

__all__ = [
    "ATTRIBUTE_OF",
    "DEFAULT_EVENT_VERSION",
    "CloudEventInvalid",
    "CloudEventUnsupported",
    "from_attributes",
    "is_json_media",
]

SPECVERSION = "1.0"
DEFAULT_EVENT_VERSION = "1.0"
#: the hookproof field each attribute becomes (for errors found after the mapping)
ATTRIBUTE_OF = {
    "eventId": "id",
    "topic": "type",
    "aggregateId": "subject",
    "aggregateVersion": "aggregateversion",
    "occurredAt": "time",
    "version": "eventversion",
    "consumerId": "consumerid",
    "source": "source",
    "payload": "data",
}
#: RFC 3339 ``date-time`` (section 5.6), checked before the value is parsed
_RFC3339 = re.compile(
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$"
)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:\S+$")
_DECIMAL = re.compile(r"^(0|[1-9][0-9]{0,18})$")


class CloudEventInvalid(ValidationError):
    """The CloudEvent breaks the CloudEvents 1.0 specification; ``attribute`` names where."""

    code = "cloudevent_invalid"
    title = "Invalid CloudEvent"

    def __init__(self, detail: str, *, attribute: str | None) -> None:
        extra = {"attribute": attribute[:64]} if attribute is not None else {}
        super().__init__(detail, **extra)
        self.attribute = attribute


class CloudEventUnsupported(CloudEventInvalid):
    """A valid CloudEvent hookproof cannot carry (data that is not JSON, no ``time``)."""

    code = "cloudevent_unsupported"
    title = "CloudEvent not supported"


def is_json_media(media_type: str) -> bool:
    """``application/json``, ``text/json`` or any ``.../...+json`` (parameters ignored)."""
    mt = media_type.split(";", 1)[0].strip().lower()
    return mt in ("application/json", "text/json") or (mt.endswith("+json") and "/" in mt)


def from_attributes(attributes: Mapping[str, Any], data: Any, *, typed: bool) -> EventIn:
    """The event a CloudEvent maps to. ``typed``: the JSON format (values of any JSON type,
    ``null`` is absent); else the binary mode's headers (every value a string)."""
    attrs = {k: v for k, v in attributes.items() if v is not None}
    for name in attrs:
        if not EXTENSION_NAME.fullmatch(name):
            raise CloudEventInvalid(
                "an attribute name is lower-case a-z and 0-9 only (at most 64 here)",
                attribute=name,
            )
    if "data" in attrs:  # a ce-data header: the data is the body, never an attribute
        raise CloudEventInvalid("data is not an attribute", attribute="data")
    for name, value in attrs.items():
        if isinstance(value, str) and not printable(value):
            raise CloudEventInvalid("a String holds no control characters", attribute=name)
    if attrs.get("specversion") != SPECVERSION:
        detail = "specversion is required" if "specversion" not in attrs else "must be 1.0"
        raise CloudEventInvalid(f"specversion: {detail}", attribute="specversion")
    for name in ("id", "source", "type"):
        _string(attrs, name, required=True)
    subject = _string(attrs, "subject")
    content_type = _string(attrs, "datacontenttype")
    if content_type is not None and not is_json_media(content_type):
        raise CloudEventUnsupported(
            "hookproof events carry JSON data: datacontenttype must be a JSON media type",
            attribute="datacontenttype",
        )
    schema = _string(attrs, "dataschema")
    if schema is not None and not _SCHEME.fullmatch(schema):
        raise CloudEventInvalid("dataschema must be an absolute URI", attribute="dataschema")
    time = _string(attrs, "time")
    if time is None:
        raise CloudEventUnsupported(
            "time is required here: it is the event's occurredAt, part of its signed body",
            attribute="time",
        )
    if not _RFC3339.fullmatch(time):
        raise CloudEventInvalid("time must be an RFC 3339 timestamp", attribute="time")
    version = _string(attrs, "eventversion") or DEFAULT_EVENT_VERSION
    consumer = _string(attrs, "consumerid")
    extensions = {k: _extension(k, v, typed) for k, v in attrs.items() if k not in NOT_EXTENSIONS}
    event = EventIn(
        event_id=attrs["id"],
        topic=attrs["type"],
        version=version,
        aggregate_id=subject if subject is not None else attrs["id"],
        aggregate_version=_aggregate_version(attrs.get("aggregateversion")),
        occurred_at=time.upper(),  # RFC 3339 allows a lower-case t and z
        payload=data,
        consumer_id=consumer,
        source=attrs["source"],
        extensions=extensions or None,
    )
    try:
        validate_event(event)
    except ValidationError as exc:  # hookproof's own bound on a value: the attribute named
        field = exc.field or ""
        attribute = ATTRIBUTE_OF.get(field) or field.removeprefix("extensions.")
        raise ValidationError(
            exc.detail, field=exc.field, code=exc.code, attribute=attribute
        ) from exc
    return event


def _string(attrs: Mapping[str, Any], name: str, *, required: bool = False) -> str | None:
    value = attrs.get(name)
    if value is None:
        if required:
            raise CloudEventInvalid(f"{name} is required", attribute=name)
        return None
    if not isinstance(value, str):
        raise CloudEventInvalid(f"{name} must be a String", attribute=name)
    if not value:
        raise CloudEventInvalid(f"{name} must not be empty", attribute=name)
    return value


def _aggregate_version(value: Any) -> int:
    if value is None:
        return 0
    if isinstance(value, str) and _DECIMAL.fullmatch(value):
        return int(value)
    if type(value) is int and value >= 0:
        return value
    raise CloudEventInvalid(
        "aggregateversion must be a non-negative Integer", attribute="aggregateversion"
    )


def _extension(name: str, value: Any, typed: bool) -> str | int | bool:
    if isinstance(value, str | bool):
        return value
    if typed and type(value) is int and -(2**31) <= value < 2**31:
        return value
    raise CloudEventInvalid(
        "an extension is a String, a 32-bit Integer or a Boolean", attribute=name
    )
