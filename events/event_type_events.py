"""Events of the tenant's event catalogue (``event-type-<tenant>-<topic>``).

Each ``PUT /v1/event-types/{topic}`` that changes anything is one ``event_type.defined`` event
carrying the whole definition (description, every declared major version with its JSON Schema
2020-12 and example, the deprecation flag). A definition replaces the one before it; the older
schemas stay in the stream, so the log says which schema judged an event at any moment.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

from .catalogue import Event

__all__ = [
    "EVENT_TYPE_EVENT_TYPES",
    "EVENT_TYPE_STREAM_PREFIX",
    "EventTypeDefined",
    "EventTypeVersion",
    "event_type_stream_id",
]

#: every event-type stream starts so (its category is ``event_type``, not ``event``)
EVENT_TYPE_STREAM_PREFIX = "event-type-"
_STREAM_MAX = 200


def event_type_stream_id(tenant_id: str, topic: str) -> str:
    """``event-type-<tenantId>-<topic>``; a topic too long for a stream id is replaced by ``~``
    and its sha-256 (``~`` never occurs in a typed topic). Tenant ids hold no ``-``."""
    sid = f"{EVENT_TYPE_STREAM_PREFIX}{tenant_id}-{topic}"
    if len(sid) <= _STREAM_MAX:
        return sid
    digest = hashlib.sha256(topic.encode()).hexdigest()
    return f"{EVENT_TYPE_STREAM_PREFIX}{tenant_id}-~{digest}"


class EventTypeVersion(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One declared major version: its schema (JSON Schema 2020-12) and an example payload."""

    schema: Any
    example: Any


class EventTypeDefined(Event, frozen=True, kw_only=True, tag="event_type.defined"):
    """The whole definition of ``topic`` for ``tenant_id`` from now on.

    ``versions``: major version (decimal string) -> schema and example. ``digest``: lowercase
    hex sha-256 of the canonical JSON of ``{description, versions, deprecated}`` (what the
    validators are compiled from; the same definition always has the same digest)."""

    tenant_id: str
    topic: str
    description: str
    versions: dict[str, EventTypeVersion]
    deprecated: bool = False
    digest: str
    at: str


EVENT_TYPE_EVENT_TYPES = ("event_type.defined",)
