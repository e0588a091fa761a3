"""The anchor of an archive segment (stream ``archive-segments``, kept hot forever).

Each anchor chains to the previous one like every stream, so a segment whose anchor is removed
breaks the chain, and the set of segments is itself tamper-evident.
"""

from __future__ import annotations

from .catalogue import Event

__all__ = ["ARCHIVE_STREAM", "SegmentWritten"]

ARCHIVE_STREAM = "archive-segments"


class SegmentWritten(Event, frozen=True, kw_only=True, tag="archive.segment_written"):
    """A segment file of closed streams was written and its signed manifest is final; the rows
    it covers may now leave the hot log (and only those)."""

    segment_id: str
    file_name: str
    file_sha256: str
    manifest_digest: str
    key_id: str
    streams: int
    events: int
    first_recorded_at: str
    last_recorded_at: str
    cutoff: str
    at: str
