"""The consumer fold and its projection (``consumers`` table, kept inline with the streams).

``evolve`` is pure: the engine folds a ``consumer-<tenant>-<id>`` stream to decide a command,
the projection keeps one row per consumer for lists and for ingest's routing check.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

import msgspec

from hookproof.events import Event, RecordedEvent
from hookproof.events.consumer_events import ConsumerCreated, ConsumerDisabled, ConsumerUpdated
from hookproof.events.queries import EVENT_QUERIES

from .base import Projection, Row

__all__ = ["ConsumerState", "Consumers", "evolve_consumer", "fold_consumer"]

EVENT_SQL = EVENT_QUERIES.named("read_stream")


@dataclass(frozen=True)
class ConsumerState:
    tenant_id: str
    consumer_id: str
    name: str
    metadata: dict[str, Any] = field(default_factory=dict)
    disabled: bool = False
    disabled_reason: str | None = None
    version: int = 0
    created_at: str = ""
    updated_at: str = ""


def evolve_consumer(state: ConsumerState | None, event: Event, version: int) -> ConsumerState:
    """The consumer after one event of its stream."""
    if isinstance(event, ConsumerCreated):
        return ConsumerState(
            tenant_id=event.tenant_id,
            consumer_id=event.consumer_id,
            name=event.name,
            metadata=dict(event.metadata),
            version=version,
            created_at=event.at,
            updated_at=event.at,
        )
    if state is None:
        raise ValueError(f"{event.type} before consumer.created")
    if isinstance(event, ConsumerUpdated):
        return replace(
            state,
            name=event.name,
            metadata=dict(event.metadata),
            version=version,
            updated_at=event.at,
        )
    if isinstance(event, ConsumerDisabled):
        return replace(
            state,
            disabled=True,
            disabled_reason=event.reason,
            version=version,
            updated_at=event.at,
        )
    return replace(state, version=version)


def fold_consumer(events: Sequence[RecordedEvent]) -> ConsumerState | None:
    state: ConsumerState | None = None
    for ev in events:
        state = evolve_consumer(state, ev.decode(), ev.stream_version)
    return state


class Consumers(Projection):
    """One row per consumer: what ``GET /v1/consumers`` pages and what ingest routes by."""

    name = "consumers"
    table = "consumers"
    load_query = "by_stream.load"
    columns = (
        "stream_id",
        "tenant_id",
        "consumer_id",
        "name",
        "metadata",
        "disabled",
        "stream_version",
        "created_at",
        "updated_at",
    )
    key_column = "stream_id"
    categories = ("consumer",)
    inline = True

    def key(self, event: RecordedEvent) -> str | None:
        return event.stream_id if event.stream_id.startswith("consumer-") else None

    async def apply_incremental(
        self, conn: Any, events: Sequence[RecordedEvent], table: str
    ) -> int:
        """Refold each touched stream from the log (a consumer's stream is short)."""
        touched = sorted({k for e in events if (k := self.key(e)) is not None})
        rows = []
        for stream in touched:
            recs = await conn.fetch(EVENT_SQL["read_stream"], stream, 1, None, None)
            state = fold_consumer([RecordedEvent.from_record(r) for r in recs])
            if state is not None:
                rows.append(self.record(_to_row(stream, state)))
        if rows:
            await conn.executemany(self.sql("upsert", table), rows)
        return len(rows)

    def evolve(self, row: Row | None, event: RecordedEvent) -> Row:
        state = row.get("_state") if row is not None else None
        if row is not None and not isinstance(state, ConsumerState):
            raise LookupError("consumer rows are rebuilt from the stream, not from columns")
        new = evolve_consumer(state, event.decode(), event.stream_version)
        return _to_row(event.stream_id, new)


def _to_row(stream: str, s: ConsumerState) -> Row:
    return {
        "stream_id": stream,
        "tenant_id": s.tenant_id,
        "consumer_id": s.consumer_id,
        "name": s.name,
        "metadata": msgspec.json.encode(s.metadata).decode(),
        "disabled": s.disabled,
        "stream_version": s.version,
        "created_at": datetime.fromisoformat(s.created_at),
        "updated_at": datetime.fromisoformat(s.updated_at),
        "_state": s,
    }
