"""``audit verify`` for the archive: each segment file against its signed manifest, its anchor
event and the tombstones of its streams. A missing or changed file is named."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg

from hookproof.errors import HookproofError
from hookproof.events import RecordedEvent, decode_event, verify_chain
from hookproof.events.archive_events import ARCHIVE_STREAM, SegmentWritten
from hookproof.events.sqlfiles import query
from hookproof.projections.key_ring import fold

from .manifest import manifest_path, read_manifest, signature_valid
from .run import file_sha256
from .segment import iter_segment, manifest_digest

__all__ = ["ArchiveReport", "SegmentProblem", "verify_archive"]

PKG = "hookproof.engine"


@dataclass(frozen=True)
class SegmentProblem:
    segment_id: str
    file: str
    problem: str  # segment_missing | segment_changed | manifest_* | anchor_* | stream_* ...
    detail: str = ""

    def to_json(self) -> dict[str, str]:
        return {
            "segmentId": self.segment_id,
            "file": self.file,
            "problem": self.problem,
            "detail": self.detail,
        }


@dataclass
class ArchiveReport:
    segments: int = 0
    events: int = 0
    problems: list[SegmentProblem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {
            "segments": self.segments,
            "events": self.events,
            "problems": [p.to_json() for p in self.problems],
            "ok": self.ok,
        }


def _check_file(
    path: Path, manifest: dict[str, Any], tombstones: dict[str, tuple[int, bytes]]
) -> tuple[int, list[tuple[str, str]]]:
    """Re-read every line: chains per stream, counts and final heads against the manifest and
    the tombstones. Returns the event count and (problem, detail) pairs."""
    problems: list[tuple[str, str]] = []
    streams: dict[str, list[RecordedEvent]] = {}
    count = 0
    for e in iter_segment(path):
        streams.setdefault(e.stream_id, []).append(e)
        count += 1
    listed = {s["streamId"]: s for s in manifest.get("streams", [])}
    if set(listed) != set(streams):
        problems.append(("stream_set_mismatch", "streams in the file differ from the manifest"))
    if set(tombstones) != set(listed):
        problems.append(("tombstone_mismatch", "tombstones differ from the manifest's streams"))
    for sid, events in streams.items():
        events.sort(key=lambda e: e.stream_version)
        broken = verify_chain(events)
        if broken is not None:
            problems.append(("chain_broken", f"{sid} at version {broken.stream_version}"))
            continue
        entry = listed.get(sid)
        head = (events[-1].stream_version, events[-1].hash)
        if entry is None or (
            entry["events"],
            entry["finalVersion"],
            entry["finalHash"],
        ) != (len(events), head[0], head[1].hex()):
            problems.append(("stream_mismatch", f"{sid}: file and manifest disagree"))
        if sid in tombstones and tombstones[sid] != head:
            problems.append(("tombstone_mismatch", f"{sid}: tombstone head differs"))
    return count, problems


async def verify_archive(conn: asyncpg.Connection, folder: Path) -> ArchiveReport:
    report = ArchiveReport()
    rows = await conn.fetch(query("archive_segments_list", PKG))
    anchors: dict[str, tuple[int, SegmentWritten]] = {}
    for r in await conn.fetch(query("read_stream"), ARCHIVE_STREAM, 1, None, None):
        try:
            ev = decode_event(r["type"], r["schema_version"], bytes(r["data"]))
        except HookproofError:
            continue
        if isinstance(ev, SegmentWritten):
            anchors[ev.segment_id] = (r["global_position"], ev)
    key_rows = await conn.fetch(query("key_events_all", PKG))
    keys = fold(RecordedEvent.from_record(r) for r in key_rows)
    seen: set[str] = set()
    for seg in rows:
        report.segments += 1
        sid = seg["segment_id"]
        seen.add(sid)
        path = folder / seg["file_name"]

        def problem(name: str, detail: str = "", _sid: str = sid, _path: Path = path) -> None:
            report.problems.append(SegmentProblem(_sid, str(_path), name, detail))

        anchor = anchors.get(sid)
        if anchor is None:
            problem("anchor_missing", "no archive.segment_written event for this segment")
        elif anchor[0] != seg["anchor_position"] or (
            anchor[1].manifest_digest != seg["manifest_digest"]
        ):
            problem("anchor_mismatch", "the anchor event does not carry this manifest digest")
        if not path.exists():
            problem("segment_missing", "the segment file is gone")
            continue
        actual = await asyncio.to_thread(file_sha256, path)
        if actual != seg["file_sha256"]:
            problem("segment_changed", f"sha-256 {actual} != manifest {seg['file_sha256']}")
            continue
        mpath = manifest_path(path)
        try:
            doc = read_manifest(mpath)
        except (OSError, ValueError) as exc:
            problem("manifest_unreadable", f"{mpath.name}: {type(exc).__name__}")
            continue
        _raw, digest = manifest_digest(doc["manifest"])
        if digest != seg["manifest_digest"] or doc["manifest"].get("fileSha256") != actual:
            problem("manifest_mismatch", f"{mpath.name}: digest or file hash differs")
        view = keys.get(seg["key_id"])
        if not signature_valid(doc, view.public_key if view is not None else None):
            problem("manifest_signature_invalid", f"{mpath.name}: key {seg['key_id']}")
        tomb = {
            r["stream_id"]: (r["final_version"], bytes(r["final_hash"]))
            for r in await conn.fetch(query("archive_segment_tombstones", PKG), sid)
        }
        count, found = await asyncio.to_thread(_check_file, path, doc["manifest"], tomb)
        report.events += count
        if count != seg["events"]:
            problem("event_count_mismatch", f"{count} events in the file, {seg['events']} anchored")
        for name, detail in found:
            problem(name, detail)
    for sid in sorted(set(anchors) - seen):
        report.problems.append(
            SegmentProblem(sid, anchors[sid][1].file_name, "segment_record_missing")
        )
    return report
