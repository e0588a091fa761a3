"""What filters read of an event (DESIGN.md section 16): its CloudEvents context attributes
(for ``exact``, ``prefix``, ``suffix`` and ``sql``) and its match document
``{id, topic, time, metadata, data}`` (for ``match``), from a hookproof event or a
CloudEvent in JSON."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import msgspec

from hookproof.engine.filters.cesql_ast import Value
from hookproof.events.canonical import canonical_json
from hookproof.schemas.api import EventIn

__all__ = [
    "FilterEvent",
    "from_cloudevent",
    "from_hookproof_event",
    "to_cloudevent_attributes",
]

_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1


@dataclass(frozen=True, slots=True)
class FilterEvent:
    """An event as filters see it: ``attributes`` by CloudEvents name, and ``document``,
    the JSON value a ``match`` document is matched against."""

    attributes: Mapping[str, Value]
    document: Mapping[str, Any]


def _wire(event: EventIn | Mapping[str, Any]) -> Mapping[str, Any]:
    if isinstance(event, msgspec.Struct):
        out: Mapping[str, Any] = msgspec.to_builtins(event)
        return out
    return event


def to_cloudevent_attributes(
    event: EventIn | Mapping[str, Any],
    *,
    tenant_id: str,
    dataschema: str | None = None,
) -> dict[str, Value]:
    """The CloudEvents 1.0 context attributes of a hookproof event (its ``POST /v1/events``
    body, camelCase): ``id`` the eventId, ``source`` the sender's ``source`` if given, else
    ``/tenants/<tenantId>``, ``type`` the topic, ``subject`` the aggregateId, ``time``
    occurredAt, ``datacontenttype`` application/json, ``dataschema`` when the event type has
    a schema URL, and the extensions ``aggregateversion`` (Integer), ``eventversion`` and
    ``consumerid`` (when the event is routed to a consumer)."""
    wire = _wire(event)
    attributes: dict[str, Value] = {
        "specversion": "1.0",
        "id": str(wire["eventId"]),
        "source": str(wire.get("source") or f"/tenants/{tenant_id}"),
        "type": str(wire["topic"]),
        "subject": str(wire["aggregateId"]),
        "time": str(wire["occurredAt"]),
        "datacontenttype": "application/json",
        "aggregateversion": int(wire["aggregateVersion"]),
        "eventversion": str(wire["version"]),
    }
    if dataschema:
        attributes["dataschema"] = dataschema
    if wire.get("consumerId"):
        attributes["consumerid"] = str(wire["consumerId"])
    return attributes


def from_hookproof_event(
    event: EventIn | Mapping[str, Any],
    *,
    tenant_id: str,
    dataschema: str | None = None,
) -> FilterEvent:
    """The filters' view of a hookproof event. Its match document's ``metadata`` holds the
    envelope fields that are not ``id``, ``topic``, ``time`` or ``data``: ``aggregateId``,
    ``aggregateVersion``, ``version``, and ``source`` and ``consumerId`` when given."""
    wire = _wire(event)
    metadata = {
        key: wire[key]
        for key in ("aggregateId", "aggregateVersion", "version", "source", "consumerId")
        if wire.get(key) is not None
    }
    document = {
        "id": wire["eventId"],
        "topic": wire["topic"],
        "time": wire["occurredAt"],
        "metadata": metadata,
        "data": wire.get("payload"),
    }
    attributes = to_cloudevent_attributes(wire, tenant_id=tenant_id, dataschema=dataschema)
    return FilterEvent(attributes, document)


def _attribute_value(value: Any) -> Value | None:
    if isinstance(value, bool | str):
        return value
    if isinstance(value, int) and _INT_MIN <= value <= _INT_MAX:
        return value
    if value is None:
        return None
    return canonical_json(value).decode()  # another JSON value: its canonical text


def from_cloudevent(cloudevent: Mapping[str, Any]) -> FilterEvent:
    """The filters' view of a CloudEvent in the JSON format: every attribute but ``data``
    and ``data_base64`` (a null one is absent; a value that is none of Boolean, 32-bit
    Integer and String reads as its canonical JSON text), and the match document ``id``,
    ``topic`` (the ``type``), ``time``, ``metadata`` (the other attributes) and ``data``."""
    attributes: dict[str, Value] = {}
    for name, raw in cloudevent.items():
        if name in ("data", "data_base64"):
            continue
        value = _attribute_value(raw)
        if value is not None:
            attributes[name] = value
    metadata = {
        k: v
        for k, v in cloudevent.items()
        if k not in ("id", "type", "time", "data", "data_base64", "specversion")
    }
    document = {
        "id": cloudevent.get("id"),
        "topic": cloudevent.get("type"),
        "time": cloudevent.get("time"),
        "metadata": metadata,
        "data": cloudevent.get("data"),
    }
    return FilterEvent(attributes, document)
