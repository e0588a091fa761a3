"""Queries over hot and archived events alike: a temporary ``events`` table holding both.

Within one transaction of a fresh session, ``pg_temp.events`` (hot rows plus the rows of the
segments that matter) shadows the real table, so the release-gate SQL runs unchanged across
the archive. Only for audit commands on their own connection: a session whose statements
were prepared against the real table must not be used.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import asyncpg

from hookproof.errors import StoreError
from hookproof.events.sqlfiles import query

from .segment import iter_segment

__all__ = ["segments_since", "shadow_events"]

PKG = "hookproof.engine"
_COLUMNS = [
    "global_position",
    "tx_id",
    "stream_id",
    "category",
    "stream_version",
    "event_id",
    "type",
    "schema_version",
    "data",
    "metadata",
    "recorded_at",
    "prev_hash",
    "hash",
]


async def segments_since(conn: asyncpg.Connection, since: datetime | None) -> list[str]:
    """Files of the segments holding events recorded at or after ``since`` (all when None).
    A stream is archived whole, so only these can hold a fact the gates count."""
    rows = await conn.fetch(query("archive_segments_since", PKG), since)
    return [r["file_name"] for r in rows]


def _records(folder: Path, files: list[str]) -> Iterator[tuple[Any, ...]]:
    for name in files:
        for e in iter_segment(folder / name):
            yield (
                e.global_position,
                str(e.tx_id),
                e.stream_id,
                e.category,
                e.stream_version,
                e.event_id,
                e.type,
                e.schema_version,
                e.data,
                e.metadata,
                e.recorded_at,
                e.prev_hash,
                e.hash,
            )


async def shadow_events(conn: asyncpg.Connection, folder: Path, files: list[str]) -> int:
    """Inside the caller's (writable) transaction: ``pg_temp.events`` = hot rows + the given
    segments' rows, indexed like the real table. Returns the archived rows loaded."""
    await conn.execute(query("archive_shadow_create", PKG))
    for name in files:
        if not (folder / name).exists():
            raise StoreError(
                f"segment {name} is missing from {folder}: run `hookproof audit verify`",
                code="archive_segment_missing",
            )
    counted = _Counted(_records(folder, files))  # streamed: never the whole archive in memory
    await conn.copy_records_to_table(
        "events", schema_name="pg_temp", records=counted, columns=_COLUMNS
    )
    await conn.execute(query("archive_shadow_index", PKG))
    return counted.n


class _Counted:
    def __init__(self, rows: Iterator[tuple[Any, ...]]) -> None:
        self.rows = rows
        self.n = 0

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        for row in self.rows:
            self.n += 1
            yield row
