"""An archival run: closed streams -> segment file -> signed manifest -> anchor -> removal.

The order is what makes a crash harmless. The file (and its manifest) is written and synced
before anything changes in the database; the anchor event, the segment record and the
tombstones commit together; only then do rows leave, in small transactions, through
``hookproof_archive_remove`` (the one way to delete). So a crash leaves either the rows in
place (an unanchored file: removed by the next run, the streams archived again) or the anchor
and the file (the next run finishes the removal). Never neither.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

import asyncpg
import structlog

from hookproof.config import Settings
from hookproof.errors import HookproofError
from hookproof.events import (
    EventStore,
    Metadata,
    Position,
    RecordedEvent,
    decode_event,
    encode_event,
)
from hookproof.events.archive_events import SegmentWritten
from hookproof.events.canonical import canonical_json
from hookproof.events.delivery_events import EventIngested, delivery_id_of, delivery_stream_id
from hookproof_subscriber import SigningKey

from ..common.clock import system_clock
from ..recording.projections_runner import catch_up
from ..recording.registry import async_projections
from .manifest import build_manifest, manifest_path, write_manifest
from .repository import AnchorLockBusy, AnchorRequest, ArchiveRepository
from .rule import DeliveryFacts, RetentionPolicy, Verdict, delivery_verdict, event_verdict
from .segment import SegmentFile, write_segment
from .throttle import Throttle, pause_after

__all__ = ["CRASH_POINTS", "ArchiveRun", "Archiver", "EngineKeys", "file_sha256"]

log = structlog.get_logger("hookproof.archive")

#: Test-only crash points (``HOOKPROOF_ARCHIVE_CRASH_AT``): the process kills itself there.
CRASH_POINTS = ("after_file", "after_anchor", "mid_delete")
SEGMENT_PREFIX = "seg-"
SEGMENT_SUFFIX = ".jsonl.gz"
#: how often the anchor asks for the log's lock (briefly each time) before the segment waits
#: for the next run
ANCHOR_ATTEMPTS = 8


def file_sha256(path: Path) -> str:
    import hashlib

    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


@dataclass
class ArchiveRun:
    """What one run did."""

    cutoff: datetime
    segments: list[str] = field(default_factory=list)
    streams: int = 0
    events: int = 0
    removed: int = 0
    resumed: list[str] = field(default_factory=list)
    orphans_removed: list[str] = field(default_factory=list)
    refused: list[dict[str, str]] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    busy: bool = False
    #: seconds spent per step: collect, write (file + manifest), anchor, remove
    steps: dict[str, float] = field(default_factory=dict)

    def took(self, step: str, seconds: float) -> None:
        self.steps[step] = round(self.steps.get(step, 0.0) + seconds, 4)

    def to_json(self) -> dict[str, Any]:
        return {
            "cutoff": self.cutoff.isoformat(),
            "segments": self.segments,
            "streams": self.streams,
            "events": self.events,
            "removed": self.removed,
            "resumed": self.resumed,
            "orphansRemoved": self.orphans_removed,
            "refused": self.refused,
            "keptHot": self.skipped,
            "seconds": round(self.seconds, 3),
            "steps": self.steps,
            "busy": self.busy,
        }


class EngineKeys(Protocol):
    """The key ring, as the archive signs with it."""

    async def ensure_active_engine_key(self, *, actor: str) -> object: ...

    async def signing_key(self) -> SigningKey: ...


def _crash_point(name: str) -> None:
    if Settings().archive_crash_at == name:
        log.warning("archive_crash_point", point=name)
        os.kill(os.getpid(), signal.SIGKILL)


class Archiver:
    """Runs archival against one database and one archive folder.

    ``segment_events``: about how many events go into one segment; ``remove_batch``: streams
    removed per transaction; ``pause_s``: the least pause between steps. After each step
    (collect and write a segment, anchor it, one removal transaction) the run pauses as
    :func:`~.throttle.pause_after` says: a duty cycle that shrinks while delivery lags.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        repository: ArchiveRepository,
        store: EventStore,
        keys: EngineKeys,
        segment_events: int = 20_000,
        remove_batch: int | None = None,
        pause_s: float | None = None,
        scan_page: int = 2_000,
        clock: Callable[[], datetime] = system_clock,
    ) -> None:
        self.repo = repository
        self.settings = settings
        self.dir = settings.archive_dir
        self.store = store
        #: signs the manifests (the engine's key ring; its ACTIVE engine key is ensured once)
        self.keys = keys
        self._key_ensured = False
        self.segment_events = segment_events
        self.remove_batch = remove_batch or settings.archive_remove_batch
        self.pause_s = settings.archive_pause_s if pause_s is None else pause_s
        self.throttle = Throttle(
            duty=settings.archive_duty,
            min_duty=settings.archive_min_duty,
            max_lag_s=settings.archive_max_lag_s,
            max_behind_s=settings.archive_max_behind_s,
            pause_s=self.pause_s,
        )
        #: how late the segment in hand is: the cutoff minus when its oldest stream closed
        self._behind_s = 0.0
        self.scan_page = scan_page
        self._worked_since = 0.0
        self.clock = clock

    async def _signing_key(self) -> SigningKey:
        if not self._key_ensured:
            await self.keys.ensure_active_engine_key(actor="system:archive")
            self._key_ensured = True
        return await self.keys.signing_key()

    def policy(self, cutoff: datetime) -> RetentionPolicy:
        return RetentionPolicy(
            cutoff=cutoff,
            now=self.clock(),
            receipt_window=timedelta(seconds=self.settings.receipt_window_s),
            replay_window=timedelta(seconds=self.settings.replay_window_s),
        )

    # -- the run ------------------------------------------------------------------------

    async def run_due(self) -> ArchiveRun:
        """A run with the retention's cutoff (``retention_days`` before now): the daemon's
        archiver worker calls it every ``archive_interval_s``."""
        days = self.settings.retention_days or 0.0
        return await self.run(self.clock() - timedelta(days=days))

    async def run(self, cutoff: datetime, *, max_segments: int | None = None) -> ArchiveRun:
        loop = asyncio.get_running_loop()
        started = loop.time()
        result = ArchiveRun(cutoff)
        self._worked_since = started
        async with self.repo.run_lock() as mine:
            if not mine:
                result.busy = True
                return result
            await self._resume(result)
            await self._remove_orphans(result)
            # the stream catalogue is kept in batches (engine/recording/projections_runner.py):
            # where a projector keeps it (it has a checkpoint), bring it up to the log first, so the
            # streams chosen do not depend on when its last batch ran
            if await self._checkpoint() is not None:
                t0 = loop.time()
                await catch_up(self.store, async_projections())
                result.took("catalogue", loop.time() - t0)
            policy = self.policy(cutoff)
            after = 0
            while max_segments is None or len(result.segments) < max_segments:
                t0 = loop.time()
                streams, after = await self._collect(policy, after, result)
                result.took("collect", loop.time() - t0)
                if not streams:
                    break
                await self._archive_segment(streams, cutoff, result)
                await self._pace(result)
        result.seconds = loop.time() - started
        log.info(
            "archive_run_done",
            segments=len(result.segments),
            streams=result.streams,
            events=result.events,
            removed=result.removed,
            seconds=round(result.seconds, 3),
            steps=result.steps,
        )
        return result

    # -- choosing closed streams ------------------------------------------------------------

    async def _checkpoint(self) -> Position | None:
        return await self.repo.min_checkpoint([p.name for p in async_projections()])

    async def _collect(
        self, policy: RetentionPolicy, after: int, result: ArchiveRun
    ) -> tuple[list[list[RecordedEvent]], int]:
        """Closed streams for one segment (events grouped with their deliveries), scanning
        business events oldest first from ``after``; returns them and where the scan stopped."""
        upper = await self.repo.upper_position(policy.cutoff)
        if upper is None:
            return [], after
        checkpoint = await self._checkpoint()
        chosen: list[list[RecordedEvent]] = []
        count = 0
        oldest: datetime | None = None
        while count < self.segment_events:
            page = await self.repo.candidate_events(after, upper, self.scan_page)
            if not page:
                break
            after = page[-1]["global_position"]
            groups = await self._closed_groups(page, policy, result)
            if groups:
                rows = await self.repo.events_of_streams([s for g in groups for s in g])
                by_stream: dict[str, list[RecordedEvent]] = {}
                for r in rows:
                    e = RecordedEvent.from_record(r)
                    by_stream.setdefault(e.stream_id, []).append(e)
                for group in groups:
                    streams = [by_stream.get(s, []) for s in group]
                    if not all(streams):
                        result.skipped["vanished"] = result.skipped.get("vanished", 0) + 1
                        continue
                    last = max(e.recorded_at for s in streams for e in s)
                    if last >= policy.cutoff:
                        result.skipped["newer_than_cutoff"] = (
                            result.skipped.get("newer_than_cutoff", 0) + 1
                        )
                        continue
                    if checkpoint is not None and any(
                        e.position > checkpoint for s in streams for e in s
                    ):
                        result.skipped["projector_behind"] = (
                            result.skipped.get("projector_behind", 0) + 1
                        )
                        continue
                    chosen.extend(streams)
                    count += sum(len(s) for s in streams)
                    oldest = last if oldest is None else min(oldest, last)
            if len(page) < self.scan_page:
                break
        self._behind_s = 0.0 if oldest is None else (policy.cutoff - oldest).total_seconds()
        return chosen, after

    async def _closed_groups(
        self, page: list[asyncpg.Record], policy: RetentionPolicy, result: ArchiveRun
    ) -> list[list[str]]:
        planned: dict[str, list[str]] = {}
        for r in page:
            try:
                ev = decode_event(r["type"], r["schema_version"], bytes(r["data"]))
            except HookproofError:
                ev = None
            if not isinstance(ev, EventIngested):
                result.skipped["unreadable"] = result.skipped.get("unreadable", 0) + 1
                continue
            planned[r["stream_id"]] = list(ev.deliveries)
        ids = sorted({d for ds in planned.values() for d in ds})
        facts = {
            r["delivery_id"]: DeliveryFacts(r["state"], r["receipts"], r["updated_at"])
            for r in await self.repo.delivery_facts(ids)
        }
        gone = await self.repo.tombstoned([delivery_stream_id(d) for d in ids])
        groups: list[list[str]] = []
        for r in page:
            stream = r["stream_id"]
            if stream not in planned:
                continue
            verdicts: list[Verdict | None] = []
            closed: list[str] = []
            for d in planned[stream]:
                if delivery_stream_id(d) in gone:
                    verdicts.append(None)
                    continue
                v = delivery_verdict(facts[d], policy) if d in facts else _MISSING
                verdicts.append(v)
                if v.closed:
                    closed.append(delivery_stream_id(d))
                else:
                    result.skipped[v.reason] = result.skipped.get(v.reason, 0) + 1
            # later events of the stream (payload conflicts) are checked on its rows as well
            verdict = event_verdict(r["recorded_at"], verdicts, policy)
            if verdict.closed:
                groups.append([stream, *closed])
            else:
                result.skipped[f"event_{verdict.reason}"] = (
                    result.skipped.get(f"event_{verdict.reason}", 0) + 1
                )
                # a closed delivery leaves on its own; its event follows with the last one
                groups.extend([c] for c in closed)
        return groups

    # -- one segment ----------------------------------------------------------------------------

    async def _archive_segment(
        self, streams: list[list[RecordedEvent]], cutoff: datetime, result: ArchiveRun
    ) -> None:
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        now = self.clock()
        segment_id = f"{SEGMENT_PREFIX}{now.strftime('%Y%m%dT%H%M%S')}-{secrets.token_hex(4)}"
        path = self.dir / f"{segment_id}{SEGMENT_SUFFIX}"
        written: SegmentFile = await asyncio.to_thread(write_segment, path, streams)
        key = await self._signing_key()
        manifest = build_manifest(segment_id, path.name, written, streams, cutoff, now)
        digest = await asyncio.to_thread(write_manifest, manifest_path(path), manifest, key)
        _crash_point("after_file")
        t1 = loop.time()
        result.took("write", t1 - t0)
        await self._pace(result)
        t1 = loop.time()
        anchored = await self._anchor(
            segment_id, path.name, written, streams, digest, key, cutoff, result
        )
        t2 = loop.time()
        result.took("anchor", t2 - t1)
        if not anchored:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
                manifest_path(path).unlink()
            result.skipped["moved_before_anchor"] = result.skipped.get("moved_before_anchor", 0) + 1
            return
        _crash_point("after_anchor")
        result.segments.append(segment_id)
        result.streams += len(streams)
        result.events += sum(len(s) for s in streams)
        await self._pace(result)
        t2 = loop.time()
        result.removed += await self._remove(segment_id, [s[0].stream_id for s in streams], result)
        result.took("remove", loop.time() - t2)

    async def _pace(self, result: ArchiveRun | None) -> None:
        """Pause after a step as the throttle says (duty cycle, shorter share while delivery
        lags); the time paused is counted under ``steps["paced"]``."""
        loop = asyncio.get_running_loop()
        worked = loop.time() - self._worked_since
        lag = await self.repo.delivery_lag()
        pause = pause_after(worked, lag, self.throttle, behind_s=self._behind_s)
        await asyncio.sleep(pause)
        if result is not None:
            result.took("paced", pause)
        self._worked_since = loop.time()

    async def _anchor(
        self,
        segment_id: str,
        file_name: str,
        written: SegmentFile,
        streams: list[list[RecordedEvent]],
        digest: str,
        key: Any,
        cutoff: datetime,
        result: ArchiveRun,
    ) -> bool:
        """Anchor event, segment record and tombstones in one call (``hookproof_archive_anchor``):
        under a lock that lets no append slip in between the check of the heads and the commit,
        held only for that one statement."""
        ids = [s[0].stream_id for s in streams]
        first = min(e.recorded_at for s in streams for e in s)
        last = max(e.recorded_at for s in streams for e in s)
        total = sum(len(s) for s in streams)
        event = SegmentWritten(
            segment_id=segment_id,
            file_name=file_name,
            file_sha256=written.sha256,
            manifest_digest=digest,
            key_id=key.key_id,
            streams=len(streams),
            events=total,
            first_recorded_at=first.isoformat(),
            last_recorded_at=last.isoformat(),
            cutoff=cutoff.isoformat(),
            at=self.clock().isoformat(),
        )
        members = [written.members[i] for i in ids]
        request = AnchorRequest(
            segment_id=segment_id,
            file_name=file_name,
            file_sha256=written.sha256,
            file_size=written.size,
            manifest_digest=digest,
            key_id=key.key_id,
            first_recorded_at=first,
            last_recorded_at=last,
            cutoff=cutoff,
            event_id=uuid.uuid4(),
            data=encode_event(event),
            metadata=canonical_json(Metadata(actor="system:archive", correlation_id=segment_id)),
            streams=ids,
            categories=[s[0].category for s in streams],
            final_versions=[s[-1].stream_version for s in streams],
            final_hashes=[s[-1].hash for s in streams],
            counts=[len(s) for s in streams],
            member_offsets=[m.offset for m in members],
            member_lengths=[m.length for m in members],
            last_recorded=[max(e.recorded_at for e in s) for s in streams],
        )
        position: int | None = None
        for attempt in range(1, ANCHOR_ATTEMPTS + 1):
            try:
                position = await self.repo.anchor(
                    request, lock_wait_ms=self.settings.archive_lock_wait_ms
                )
                break
            except AnchorLockBusy:
                # the log's lock is held (an autovacuum of events, a long append): waiting
                # for it would queue every append behind us; try again after a pause
                result.skipped["anchor_lock_busy"] = result.skipped.get("anchor_lock_busy", 0) + 1
                if attempt == ANCHOR_ATTEMPTS:
                    log.warning("archive_anchor_lock_busy", segment=segment_id, attempts=attempt)
                    return False
                await asyncio.sleep(min(0.1 * 2**attempt, 5.0))
        if position is None:
            log.warning("archive_streams_moved", segment=segment_id)
            return False
        log.info("archive_segment_anchored", segment=segment_id, streams=len(ids), events=total)
        return True

    async def _remove(
        self, segment_id: str, stream_ids: Iterable[str], result: ArchiveRun | None = None
    ) -> int:
        """Remove the segment's rows in small transactions (the one function that deletes),
        paced between them."""
        ids = list(stream_ids)
        removed = 0
        for start in range(0, len(ids), self.remove_batch):
            batch = ids[start : start + self.remove_batch]
            deliveries = [d for s in batch if (d := delivery_id_of(s)) is not None]
            removed += await self.repo.remove(segment_id, batch, deliveries)
            if start == 0:
                _crash_point("mid_delete")
            await self._pace(result)
        await self.repo.complete(segment_id)
        return removed

    # -- recovery after a stopped run ------------------------------------------------------

    async def _resume(self, result: ArchiveRun) -> None:
        """Finish segments anchored by a run that stopped before its rows were all removed,
        provided their file is still there and intact (otherwise the rows stay hot)."""
        for seg in await self.repo.incomplete():
            path = self.dir / seg.file_name
            problem = None
            if not path.exists():
                problem = "segment_missing"
            elif await asyncio.to_thread(file_sha256, path) != seg.file_sha256:
                problem = "segment_changed"
            if problem is not None:
                log.error("archive_resume_refused", segment=seg.segment_id, problem=problem)
                result.refused.append(
                    {"segment": seg.segment_id, "file": str(path), "problem": problem}
                )
                continue
            streams = await self.repo.segment_streams(seg.segment_id)
            result.removed += await self._remove(seg.segment_id, streams, result)
            result.resumed.append(seg.segment_id)

    async def _remove_orphans(self, result: ArchiveRun) -> None:
        """Segment files (and manifests, temporaries) that no anchor names: a run stopped
        before anchoring them, so their rows are still hot; they go, the streams come again."""
        if not self.dir.is_dir():
            return
        known = await self.repo.known_files()
        for p in sorted(self.dir.iterdir()):
            if not p.name.startswith(SEGMENT_PREFIX):
                continue
            base = p.name.split(SEGMENT_SUFFIX)[0] + SEGMENT_SUFFIX
            if base in known and not p.name.endswith(".tmp"):
                continue
            p.unlink()
            result.orphans_removed.append(p.name)


class _Missing:
    closed = False
    reason = "ledger_row_missing"


_MISSING: Any = _Missing()
