"""Tamper evidence: every event's hash chains to the previous event of its stream.

The formula is the same as ``hookproof_event_hash`` in ``sql/migrations/0001_event_store.sql``.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

__all__ = ["BrokenLink", "ChainedRow", "event_hash", "verify_chain"]


def event_hash(
    prev_hash: bytes | None,
    stream_id: str,
    stream_version: int,
    event_id: uuid.UUID,
    type_: str,
    schema_version: int,
    data: bytes,
    metadata: bytes,
) -> bytes:
    """sha-256 over the previous hash, a NUL-separated header, the data and the metadata."""
    h = hashlib.sha256()
    if prev_hash:
        h.update(prev_hash)
    header = f"{stream_id}\0{stream_version}\0{event_id}\0{type_}\0{schema_version}\0"
    h.update(header.encode("utf-8"))
    h.update(data)
    h.update(b"\0")
    h.update(metadata)
    return h.digest()


class ChainedRow(Protocol):
    @property
    def stream_id(self) -> str: ...
    @property
    def stream_version(self) -> int: ...
    @property
    def event_id(self) -> uuid.UUID: ...
    @property
    def type(self) -> str: ...
    @property
    def schema_version(self) -> int: ...
    @property
    def data(self) -> bytes: ...
    @property
    def metadata(self) -> bytes: ...
    @property
    def prev_hash(self) -> bytes | None: ...
    @property
    def hash(self) -> bytes: ...


@dataclass(frozen=True)
class BrokenLink:
    """The first event at which a stream's chain does not hold, and why."""

    stream_id: str
    stream_version: int
    problem: str  # version_gap | prev_hash_mismatch | hash_mismatch


def verify_chain(rows: Iterable[ChainedRow]) -> BrokenLink | None:
    """Check one stream's rows (in version order); return the first broken link or None."""
    expected_prev: bytes | None = None
    expected_version = 1
    for row in rows:
        if row.stream_version != expected_version:
            return BrokenLink(row.stream_id, row.stream_version, "version_gap")
        if (row.prev_hash or None) != expected_prev:
            return BrokenLink(row.stream_id, row.stream_version, "prev_hash_mismatch")
        actual = event_hash(
            row.prev_hash,
            row.stream_id,
            row.stream_version,
            row.event_id,
            row.type,
            row.schema_version,
            row.data,
            row.metadata,
        )
        if actual != row.hash:
            return BrokenLink(row.stream_id, row.stream_version, "hash_mismatch")
        expected_prev = row.hash
        expected_version += 1
    return None
