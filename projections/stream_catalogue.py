"""Projection ``stream_catalogue``: per stream, its category, version and last event time."""

from __future__ import annotations

from hookproof.events import RecordedEvent

from .base import Projection, Row

__all__ = ["StreamCatalogue"]


class StreamCatalogue(Projection):
    name = "stream_catalogue"
    table = "proj_stream_catalogue"
    columns = (
        "stream_id",
        "category",
        "version",
        "event_count",
        "first_event_at",
        "last_event_at",
        "last_position",
    )
    key_column = "stream_id"

    def key(self, event: RecordedEvent) -> str:
        return event.stream_id

    def evolve(self, row: Row | None, event: RecordedEvent) -> Row:
        if row is None:
            return {
                "stream_id": event.stream_id,
                "category": event.category,
                "version": event.stream_version,
                "event_count": 1,
                "first_event_at": event.recorded_at,
                "last_event_at": event.recorded_at,
                "last_position": event.global_position,
            }
        return {
            **row,
            "version": max(row["version"], event.stream_version),
            "event_count": row["event_count"] + 1,
            "last_event_at": max(row["last_event_at"], event.recorded_at),
            "last_position": max(row["last_position"], event.global_position),
        }
