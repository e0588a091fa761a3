"""Segment files: closed streams as gzip JSON lines, one gzip member per group of streams.

A segment is an ordinary ``.jsonl.gz`` file (``zcat`` reads it whole, line by line: the
members concatenate); each stream's lines sit inside one member, whose byte offset and length
the manifest records, so one stream is read back by decompressing one member. Each line is
one event row, byte-exact: ``data`` and ``metadata`` are the stored canonical bytes (as UTF-8
text, or base64 under ``dataB64``/``metadataB64`` if they were not valid UTF-8), hashes in hex.

The manifest names the segment, every stream with its event count, final version and final
hash and member, the totals and the file's sha-256. It is signed (ed25519) over its canonical
JSON bytes with the engine key; its digest (sha-256 of those bytes) is what the anchor event
carries.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import os
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec

from hookproof.events import RecordedEvent
from hookproof.events.canonical import canonical_json

__all__ = [
    "MANIFEST_FORMAT",
    "SEGMENT_FORMAT",
    "Member",
    "SegmentFile",
    "decode_line",
    "encode_line",
    "iter_segment",
    "manifest_digest",
    "read_member",
    "write_segment",
]

SEGMENT_FORMAT = "hookproof.segment.v1"
MANIFEST_FORMAT = "hookproof.segment-manifest.v1"
_ENCODER = msgspec.json.Encoder()


def _text_or_b64(out: dict[str, Any], key: str, raw: bytes) -> None:
    try:
        out[key] = raw.decode("utf-8")
    except UnicodeDecodeError:
        out[key + "B64"] = base64.b64encode(raw).decode("ascii")


def encode_line(e: RecordedEvent) -> bytes:
    """One event row as a JSON line (byte-exact round trip through ``decode_line``)."""
    out: dict[str, Any] = {
        "globalPosition": e.global_position,
        "txId": e.tx_id,
        "streamId": e.stream_id,
        "streamVersion": e.stream_version,
        "eventId": str(e.event_id),
        "type": e.type,
        "schemaVersion": e.schema_version,
        "recordedAt": e.recorded_at.isoformat(),
        "prevHash": e.prev_hash.hex() if e.prev_hash else None,
        "hash": e.hash.hex(),
    }
    _text_or_b64(out, "data", e.data)
    _text_or_b64(out, "metadata", e.metadata)
    return _ENCODER.encode(out) + b"\n"


def _raw(doc: dict[str, Any], key: str) -> bytes:
    if key in doc:
        return str(doc[key]).encode("utf-8")
    return base64.b64decode(doc[key + "B64"])


def decode_line(line: bytes) -> RecordedEvent:
    doc = msgspec.json.decode(line)
    prev = doc.get("prevHash")
    return RecordedEvent(
        global_position=int(doc["globalPosition"]),
        tx_id=int(doc["txId"]),
        stream_id=doc["streamId"],
        stream_version=int(doc["streamVersion"]),
        event_id=uuid.UUID(doc["eventId"]),
        type=doc["type"],
        schema_version=int(doc["schemaVersion"]),
        data=_raw(doc, "data"),
        metadata=_raw(doc, "metadata"),
        recorded_at=datetime.fromisoformat(doc["recordedAt"]),
        prev_hash=bytes.fromhex(prev) if prev else None,
        hash=bytes.fromhex(doc["hash"]),
    )


@dataclass(frozen=True)
class Member:
    offset: int
    length: int


@dataclass(frozen=True)
class SegmentFile:
    """What writing a segment produced: per stream its member, and the file's digest."""

    path: Path
    members: dict[str, Member]
    sha256: str
    size: int


def write_segment(
    path: Path, streams: Sequence[Sequence[RecordedEvent]], *, per_member: int = 32
) -> SegmentFile:
    """Write the streams (each in version order) to ``path`` atomically: a temporary file,
    fsync, rename, fsync of the folder. ``per_member`` streams share one gzip member."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    members: dict[str, Member] = {}
    digest = hashlib.sha256()
    offset = 0
    with tmp.open("wb") as f:
        for start in range(0, len(streams), per_member):
            group = streams[start : start + per_member]
            buf = io.BytesIO()
            with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=1, mtime=0) as gz:
                for events in group:
                    for e in events:
                        gz.write(encode_line(e))
            blob = buf.getvalue()
            f.write(blob)
            digest.update(blob)
            for events in group:
                members[events[0].stream_id] = Member(offset, len(blob))
            offset += len(blob)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
    return SegmentFile(path, members, digest.hexdigest(), offset)


def read_member(path: Path, member: Member, stream_id: str) -> list[RecordedEvent]:
    """The events of one stream, from its member alone."""
    with path.open("rb") as f:
        f.seek(member.offset)
        blob = f.read(member.length)
    needle = b'"streamId":' + _ENCODER.encode(stream_id) + b","
    lines = gzip.decompress(blob).splitlines()
    out = [e for e in (decode_line(x) for x in lines if needle in x) if e.stream_id == stream_id]
    out.sort(key=lambda e: e.stream_version)
    return out


def iter_segment(path: Path) -> Iterator[RecordedEvent]:
    """Every event of a segment, in file order (streaming)."""
    with gzip.open(path, "rb") as f:
        for line in f:
            if line.strip():
                yield decode_line(line)


def manifest_digest(manifest: dict[str, Any]) -> tuple[bytes, str]:
    """The manifest's canonical bytes and their sha-256 (hex): what is signed and anchored."""
    raw = canonical_json(manifest)
    return raw, hashlib.sha256(raw).hexdigest()
