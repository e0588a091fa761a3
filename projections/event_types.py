"""The event catalogue's projection (``event_types`` table): one row per (tenant, topic).

Each ``event_type.defined`` carries the whole definition, so a row is the latest definition
of its stream plus the time of the first one. Kept inline (same transaction as the append):
ingest judges payloads against the row it reads in its own transaction, never a row behind
the log.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from hookproof.events import RecordedEvent
from hookproof.events.canonical import canonical_json
from hookproof.events.event_type_events import EVENT_TYPE_STREAM_PREFIX, EventTypeDefined

from .base import Projection, Row

__all__ = ["EventTypes", "definition_json", "majors_of"]


def majors_of(event: EventTypeDefined) -> list[int]:
    return sorted(int(m) for m in event.versions)


def definition_json(event: EventTypeDefined) -> str:
    """The stored definition: canonical JSON of description, versions and deprecated."""
    return canonical_json(
        {
            "description": event.description,
            "versions": {
                m: {"schema": v.schema, "example": v.example} for m, v in event.versions.items()
            },
            "deprecated": event.deprecated,
        }
    ).decode()


class EventTypes(Projection):
    name = "event_types"
    table = "event_types"
    load_query = "by_stream.load"
    columns = (
        "stream_id",
        "tenant_id",
        "topic",
        "stream_version",
        "majors",
        "deprecated",
        "digest",
        "definition",
        "created_at",
        "updated_at",
    )
    key_column = "stream_id"
    categories = ("event_type",)
    inline = True

    def key(self, event: RecordedEvent) -> str | None:
        sid = event.stream_id
        return sid if sid.startswith(EVENT_TYPE_STREAM_PREFIX) else None

    def evolve(self, row: Row | None, event: RecordedEvent) -> Row:
        data: Any = event.decode()
        if not isinstance(data, EventTypeDefined):  # no other event lives in these streams
            raise ValueError(f"{event.type} in an event-type stream")
        at = datetime.fromisoformat(data.at)
        return {
            "stream_id": event.stream_id,
            "tenant_id": data.tenant_id,
            "topic": data.topic,
            "stream_version": event.stream_version,
            "majors": majors_of(data),
            "deprecated": data.deprecated,
            "digest": data.digest,
            "definition": definition_json(data),
            "created_at": row["created_at"] if row is not None else at,
            "updated_at": at,
        }
