"""Projection ``stream_catalogue``: per stream, its category, version and last event time."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hookproof.events import Position, RecordedEvent
from hookproof.events.sqlfiles import render

from .base import Projection, Row
from .queries import PROJECTION_QUERIES

__all__ = ["StreamCatalogue"]

SQL = PROJECTION_QUERIES.named("stream_catalogue.merge", "stream_catalogue.advance")


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
    headers_only = True
    # Read by the archive alone, after catching it up: not worth ~0.5 KiB of WAL per delivery
    # (bench/HISTORY.md "Session 7"); a crash costs one re-fold of the log's headers.
    unlogged = True

    async def apply_incremental(
        self, conn: Any, events: Sequence[RecordedEvent], table: str
    ) -> int:
        """A page in one statement: each stream's events of the page folded from nothing (the
        fold of ``evolve`` written out over a list per stream: a row dict per event cost about
        11 us), merged in SQL into the row already there (no load round trip; the merge
        continues the fold exactly: see ``stream_catalogue.merge.sql``). The rebuild folds
        with ``evolve`` itself; tests/projections/test_stream_catalogue.py holds the two equal.
        """
        partial: dict[str, list[Any]] = {}
        for ev in events:
            p = partial.get(ev.stream_id)
            if p is None:  # stream, category, version, count, first, last, position
                at = ev.recorded_at
                partial[ev.stream_id] = [
                    ev.stream_id,
                    ev.category,
                    ev.stream_version,
                    1,
                    at,
                    at,
                    ev.global_position,
                ]
                continue
            p[2] = max(p[2], ev.stream_version)
            p[3] += 1
            p[5] = max(p[5], ev.recorded_at)
            p[6] = max(p[6], ev.global_position)
        if not partial:
            return 0
        rows = [partial[k] for k in sorted(partial)]
        columns = [list(c) for c in zip(*rows, strict=True)]
        await conn.execute(render(SQL["stream_catalogue.merge"], table=table), *columns)
        return len(rows)

    async def advance(
        self, conn: Any, table: str, after: Position, limit: int
    ) -> tuple[int, Position]:
        """The projector's page done by the server in one statement: the next ``limit`` row
        headers after ``after`` read, folded and merged (``stream_catalogue.advance.sql``);
        returns how many events it applied and the last one's position (``after`` if none).
        Nothing of the page is decoded or folded in this process, whose event loop may be
        answering the API meanwhile (bench/HISTORY.md "Session 8: soak"). The same fold as
        :meth:`apply_incremental` and ``evolve``: tests/projections/test_stream_catalogue.py.
        """
        r = await conn.fetchrow(
            render(SQL["stream_catalogue.advance"], table=table),
            str(after.tx_id),
            after.global_position,
            limit,
        )
        if not r["events"]:
            return 0, after
        return int(r["events"]), Position(int(r["tx_id"]), int(r["global_position"]))

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
