"""Reading archived streams back: the store's fallback when a stream is no longer hot."""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncpg

from hookproof.errors import StoreError
from hookproof.events import RecordedEvent
from hookproof.events.sqlfiles import query

from .segment import Member, read_member

__all__ = ["SegmentArchive"]

PKG = "hookproof.engine"


class SegmentArchive:
    """Finds a stream's tombstone, then reads its one gzip member from the segment file.

    The events read back are checked against the tombstone (count, final version, final hash)
    before anyone sees them; a missing or altered segment is an error, never a silent gap.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    async def read_archived(
        self, runner: asyncpg.Connection | asyncpg.Pool, stream_id: str
    ) -> list[RecordedEvent] | None:
        row = await runner.fetchrow(query("archive_stream_locate", PKG), stream_id)
        if row is None:
            return None
        path = self.folder / row["file_name"]
        member = Member(row["member_offset"], row["member_length"])
        try:
            events = await asyncio.to_thread(read_member, path, member, stream_id)
        except (OSError, EOFError, ValueError) as exc:
            raise StoreError(
                f"archived stream {stream_id!r}: segment {row['segment_id']} is unreadable",
                code="archive_segment_unreadable",
                segment=row["segment_id"],
            ) from exc
        if (
            len(events) != row["events"]
            or not events
            or events[-1].stream_version != row["final_version"]
            or events[-1].hash != bytes(row["final_hash"])
        ):
            raise StoreError(
                f"archived stream {stream_id!r} does not match its tombstone in segment "
                f"{row['segment_id']}",
                code="archive_segment_mismatch",
                segment=row["segment_id"],
            )
        return events
