"""The event store: batched append with expected versions, stream reads, commit-safe tailing.

Appends of many events across many streams are one statement in one transaction; a version
conflict raises :class:`~hookproof.errors.ConcurrencyConflict` and nothing of the batch is
written. The global log is read in ``(tx_id, global_position)`` order, only up to the oldest
transaction still running, so an event whose transaction commits late is never skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import re
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field, fields, make_dataclass
from datetime import datetime
from typing import Any, Literal, Protocol

import asyncpg
import msgspec

from hookproof.errors import ConcurrencyConflict, StoreError, StreamArchived, ValidationError
from hookproof.events.queries import EVENT_QUERIES

from .canonical import canonical_json
from .catalogue import Event, decode_event, encode_event
from .chain import event_hash

__all__ = [
    "ANY",
    "NO_STREAM",
    "ArchiveSource",
    "EventStore",
    "ExpectedVersion",
    "Metadata",
    "Position",
    "RecordedEvent",
    "StreamAppend",
    "category_of",
]

ANY: Literal["any"] = "any"
NO_STREAM: Literal["no_stream"] = "no_stream"
ExpectedVersion = int | Literal["any", "no_stream"]

NOTIFY_CHANNEL = "hookproof_events"
#: appends of at least this many events go through COPY into a staging table (one round trip
#: more, much less server work than unnesting ten arrays)
_STAGE_MIN_ROWS = 256
_STAGE_COLUMNS = (
    "ord",
    "stream_id",
    "category",
    "stream_version",
    "event_id",
    "type",
    "schema_version",
    "data",
    "metadata",
    "prev_hash",
    "hash",
)
_UNIQUE_DETAIL = re.compile(r"\(stream_id, stream_version\)=\((?P<stream>.*), (?P<v>\d+)\)")

SQL = EVENT_QUERIES.named(
    "read_stream",
    "stream_heads",
    "lock_streams",
    "append",
    "append_stage_create",
    "append_staged",
    "archived_among",
    "tail_categories",
    "tail_categories_payloads",
    "tail",
)


class Metadata(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Who and what caused an event. Never carries a secret."""

    actor: str | None = None
    causation_id: str | None = None
    correlation_id: str | None = None
    trace_id: str | None = None


_EMPTY_METADATA = Metadata()


def category_of(stream_id: str) -> str:
    """``subscription-abc`` -> ``subscription``; ``event-type-...`` -> ``event_type`` (the
    tenant's event catalogue, never a business event's ``event-<tenant>/<id>`` stream)."""
    if stream_id.startswith("event-type-"):
        return "event_type"
    return stream_id.split("-", 1)[0]


@dataclass(frozen=True)
class StreamAppend:
    """Events for one stream, with the version the stream must be at before them.

    ``expected_hash``: the hash of the stream's event at version ``expected`` (an integer),
    when the writer already holds it (read in the same transaction, or returned by its own
    previous append): the head is then not read again. A stale pair is still refused: the
    first event is written at ``expected + 1``, which the stream already holds
    (:class:`~hookproof.errors.ConcurrencyConflict`)."""

    stream_id: str
    events: Sequence[Event]
    expected: ExpectedVersion = ANY
    metadata: Metadata = _EMPTY_METADATA
    event_ids: Sequence[uuid.UUID] | None = None
    expected_hash: bytes | None = None


@dataclass(frozen=True, order=True)
class Position:
    """A point in the commit-safe order of the global log."""

    tx_id: int = 0
    global_position: int = 0


@dataclass(frozen=True, slots=True)
class RecordedEvent:
    """One row of the log."""

    global_position: int
    tx_id: int
    stream_id: str
    stream_version: int
    event_id: uuid.UUID
    type: str
    schema_version: int
    data: bytes
    metadata: bytes
    recorded_at: datetime
    prev_hash: bytes | None
    hash: bytes
    _decoded: list[Event] = field(default_factory=list, compare=False, repr=False)

    @property
    def position(self) -> Position:
        return Position(self.tx_id, self.global_position)

    @property
    def category(self) -> str:
        return category_of(self.stream_id)

    def decode(self) -> Event:
        """The event in its current shape (upcast if stored in an older one)."""
        if not self._decoded:
            self._decoded.append(decode_event(self.type, self.schema_version, self.data))
        return self._decoded[0]

    def meta(self) -> Metadata:
        return msgspec.json.decode(self.metadata, type=Metadata)

    @classmethod
    def from_record(cls, r: asyncpg.Record) -> RecordedEvent:
        """Build from a row with the columns of ``_RECORD_FIELDS``, in that order.

        The hot path of rebuilds and audits: built positionally as a mutable twin with the
        same slots, then given this class (a frozen dataclass sets each field through
        ``object.__setattr__``, about five times slower).
        """
        if len(r) != 12:  # some other column list: go by name
            r = tuple(r[name] for name in _RECORD_FIELDS)
        prev = r[10]
        obj = _RecordedEventBuilder(
            r[0],
            int(r[1]),
            r[2],
            r[3],
            r[4],
            r[5],
            r[6],
            r[7] if type(r[7]) is bytes else bytes(r[7]),
            r[8] if type(r[8]) is bytes else bytes(r[8]),
            r[9],
            None if prev is None else (prev if type(prev) is bytes else bytes(prev)),
            r[11] if type(r[11]) is bytes else bytes(r[11]),
            [],
        )
        obj.__class__ = cls
        return obj  # type: ignore[no-any-return]


#: the columns of a log row, in the order of :class:`RecordedEvent`'s fields
_RECORD_FIELDS = tuple(f.name for f in fields(RecordedEvent) if f.name != "_decoded")

#: Same slots as :class:`RecordedEvent` (made from its fields), not frozen: only used to build
#: one quickly. Every field is positional and required, ``_decoded`` last.
_RecordedEventBuilder = make_dataclass(
    "_RecordedEventBuilder", [(f.name, f.type) for f in fields(RecordedEvent)], slots=True
)


def _recorded(*values: Any) -> RecordedEvent:
    """A :class:`RecordedEvent` from its field values in order (built as the mutable twin)."""
    obj = _RecordedEventBuilder(*values)
    obj.__class__ = RecordedEvent
    return obj  # type: ignore[no-any-return]


def _uuid4s(n: int) -> Iterator[uuid.UUID]:
    """``n`` random (version 4) UUIDs from one read of the OS random source."""
    raw = os.urandom(16 * n)
    for i in range(0, 16 * n, 16):
        yield uuid.UUID(bytes=raw[i : i + 16], version=4)


InlineHook = Callable[[asyncpg.Connection, list[RecordedEvent]], Awaitable[None]]


class ArchiveSource(Protocol):
    """Where the events of archived streams can be read back (the engine's segment files)."""

    async def read_archived(
        self, runner: asyncpg.Connection | asyncpg.Pool, stream_id: str
    ) -> list[RecordedEvent] | None:
        """The stream's archived events in version order, or None when it is not archived."""
        ...


def _check_expected(stream_id: str, expected: ExpectedVersion) -> None:
    if expected in (ANY, NO_STREAM):
        return
    if isinstance(expected, bool) or not isinstance(expected, int):
        raise ValidationError(
            f"stream {stream_id!r}: expected version must be an integer, 'any' or 'no_stream'",
            field="expected",
            code="invalid_expected_version",
        )
    if expected < 0:
        raise ValidationError(
            f"stream {stream_id!r}: expected version {expected} is below zero",
            field="expected",
            code="invalid_expected_version",
        )


def _matches(expected: ExpectedVersion, actual: int) -> bool:
    if expected == ANY:
        return True
    if expected == NO_STREAM:
        return actual == 0
    return expected == actual


class EventStore:
    """Append to and read from the ``events`` table through an asyncpg pool.

    ``inline`` hooks run inside the append transaction with the recorded events, so inline
    projections are never behind the log.
    """

    def __init__(
        self,
        pool: asyncpg.Pool,
        *,
        inline: Sequence[InlineHook] = (),
        archive: ArchiveSource | None = None,
    ) -> None:
        self.pool = pool
        #: fixed at construction (the engine's come from its registry): nothing adds one later
        self.inline: tuple[InlineHook, ...] = tuple(inline)
        #: Reads of a stream that is no longer hot fall back to it (None: hot rows only).
        self.archive = archive

    # -- append -------------------------------------------------------------------------

    async def append(
        self,
        appends: Sequence[StreamAppend],
        *,
        conn: asyncpg.Connection | None = None,
        savepoint: bool = True,
    ) -> list[RecordedEvent]:
        """Append every event of every stream, or none. Returns the recorded rows in order.

        With ``conn``, runs inside the caller's transaction (a savepoint keeps a failed
        batch from leaving anything behind); otherwise in a transaction of its own. A caller
        whose whole transaction fails with the append may pass ``savepoint=False`` (two round
        trips fewer; no retry of an ``ANY`` append that lost a race).
        """
        prepared = self._prepare(appends)
        if conn is not None:
            if not savepoint and conn.is_in_transaction():
                return await self._append_once(conn, appends, prepared)
            return await self._append_with_retry(conn, appends, prepared)
        async with self.pool.acquire() as own:
            return await self._append_with_retry(own, appends, prepared)

    def _prepare(self, appends: Sequence[StreamAppend]) -> list[list[tuple[bytes, str, int]]]:
        if not appends:
            raise ValidationError("empty batch", field="events", code="empty_batch")
        seen: set[str] = set()
        encoded: list[list[tuple[bytes, str, int]]] = []
        for a in appends:
            if not isinstance(a.stream_id, str) or not a.stream_id or len(a.stream_id) > 200:
                raise ValidationError("invalid stream id", field="stream_id", code="invalid_stream")
            if a.stream_id in seen:
                raise ValidationError(
                    f"stream {a.stream_id!r} appears twice in one batch",
                    field="stream_id",
                    code="duplicate_stream_in_batch",
                )
            seen.add(a.stream_id)
            _check_expected(a.stream_id, a.expected)
            if not a.events:
                raise ValidationError(
                    f"stream {a.stream_id!r}: no events", field="events", code="empty_batch"
                )
            if a.event_ids is not None and len(a.event_ids) != len(a.events):
                raise ValidationError(
                    "event_ids and events differ in length", field="event_ids", code="invalid_batch"
                )
            encoded.append([(encode_event(e), e.type, e.schema_version) for e in a.events])
        return encoded

    async def _append_with_retry(
        self,
        conn: asyncpg.Connection,
        appends: Sequence[StreamAppend],
        prepared: list[list[tuple[bytes, str, int]]],
    ) -> list[RecordedEvent]:
        for attempt in range(5):
            try:
                async with conn.transaction():
                    return await self._append_once(conn, appends, prepared)
            except ConcurrencyConflict as conflict:
                expected = next(a.expected for a in appends if a.stream_id == conflict.stream_id)
                if expected != ANY or attempt == 4:
                    raise
        raise AssertionError("unreachable")

    async def _append_once(
        self,
        conn: asyncpg.Connection,
        appends: Sequence[StreamAppend],
        prepared: list[list[tuple[bytes, str, int]]],
    ) -> list[RecordedEvent]:
        heads: dict[str, tuple[int, bytes]] = {}
        need_heads = []
        for a in appends:
            if a.expected_hash is not None and type(a.expected) is int and a.expected > 0:
                heads[a.stream_id] = (a.expected, a.expected_hash)  # known to the writer
            elif a.expected != NO_STREAM:
                need_heads.append(a.stream_id)
        lock = [a.stream_id for a in appends if a.expected == ANY]
        if lock:
            await conn.execute(SQL["lock_streams"], lock)
        if need_heads:
            try:
                rows = await conn.fetch(SQL["stream_heads"], need_heads)
            except asyncpg.PostgresError as exc:
                raise StoreError("reading stream heads failed") from exc
            for r in rows:
                if r["archived"]:
                    raise StreamArchived(r["stream_id"])
                heads[r["stream_id"]] = (r["stream_version"], bytes(r["hash"]))

        cols: tuple[list[Any], ...] = tuple([] for _ in range(10))
        c_stream, c_cat, c_ver, c_eid, c_type, c_schema, c_data, c_meta, c_prev, c_hash = cols
        originals: list[Event] = []
        random_ids = _uuid4s(sum(len(evs) for evs in prepared))
        meta_cache: dict[int, bytes] = {}
        for a, evs in zip(appends, prepared, strict=True):
            version, prev = heads.get(a.stream_id, (0, None))
            if not _matches(a.expected, version):
                raise ConcurrencyConflict(a.stream_id, a.expected, version)
            meta = meta_cache.get(id(a.metadata))
            if meta is None:  # one metadata object shared by many streams is encoded once
                meta = meta_cache[id(a.metadata)] = canonical_json(a.metadata)
            category = category_of(a.stream_id)
            for i, (data, type_, schema) in enumerate(evs):
                version += 1
                eid = a.event_ids[i] if a.event_ids is not None else next(random_ids)
                h = event_hash(prev, a.stream_id, version, eid, type_, schema, data, meta)
                c_stream.append(a.stream_id)
                c_cat.append(category)
                c_ver.append(version)
                c_eid.append(eid)
                c_type.append(type_)
                c_schema.append(schema)
                c_data.append(data)
                c_meta.append(meta)
                c_prev.append(prev)
                c_hash.append(h)
                originals.append(a.events[i])
                prev = h
        try:
            if len(c_stream) >= _STAGE_MIN_ROWS:
                await conn.execute(SQL["append_stage_create"])
                await conn.copy_records_to_table(
                    "append_stage",
                    records=zip(itertools.count(), *cols),
                    columns=_STAGE_COLUMNS,
                    schema_name="pg_temp",
                )
                rows = await conn.fetch(SQL["append_staged"])
            else:
                rows = await conn.fetch(SQL["append"], *cols)
        except asyncpg.UniqueViolationError as exc:
            raise self._conflict_from(exc, appends, heads) from exc
        except asyncpg.PostgresError as exc:
            raise StoreError(f"append failed: {type(exc).__name__}") from exc
        if len(rows) != len(cols[0]):  # some stream was archived: the batch is refused whole
            archived = await conn.fetchval(
                SQL["archived_among"], sorted({a.stream_id for a in appends})
            )
            raise StreamArchived(archived or appends[0].stream_id)
        recorded = [
            _recorded(
                r[0],
                int(r[1]),
                c_stream[i],
                c_ver[i],
                c_eid[i],
                c_type[i],
                c_schema[i],
                c_data[i],
                c_meta[i],
                r[2],
                c_prev[i],
                c_hash[i],
                [originals[i]],  # already decoded: the very object that was encoded
            )
            for i, r in enumerate(rows)
        ]
        for hook in self.inline:
            await hook(conn, recorded)
        return recorded

    @staticmethod
    def _conflict_from(
        exc: asyncpg.UniqueViolationError,
        appends: Sequence[StreamAppend],
        heads: dict[str, tuple[int, bytes]],
    ) -> StoreError:
        detail = getattr(exc, "detail", "") or ""
        m = _UNIQUE_DETAIL.search(detail)
        if m:
            stream = m.group("stream")
            for a in appends:
                if a.stream_id == stream:
                    # The stream already holds at least the version we tried to write.
                    return ConcurrencyConflict(stream, a.expected, int(m.group("v")))
        if "event_id" in (getattr(exc, "constraint_name", "") or ""):
            return StoreError("duplicate event id", code="duplicate_event_id", status=409)
        return StoreError("append conflicted")

    @contextlib.asynccontextmanager
    async def transaction(
        self, conn: asyncpg.Connection | None = None
    ) -> AsyncIterator[asyncpg.Connection]:
        """A transaction on ``conn`` (a savepoint when it is in one already), or on a connection
        of the pool held until it ends."""
        if conn is not None:
            async with conn.transaction():
                yield conn
            return
        async with self.pool.acquire() as own, own.transaction():
            yield own

    # -- notifications ------------------------------------------------------------------

    async def relisten(
        self, listener: asyncpg.Connection, callback: Callable[..., object]
    ) -> asyncpg.Connection:
        """``listener`` while it is open; once the server dropped it (a Postgres restart), a new
        connection LISTENing with ``callback`` in its place (the old one released), so
        notifications wake the caller again. Raises while the database is unreachable."""
        try:
            if not listener.is_closed():
                return listener
        except asyncpg.InterfaceError:  # the pool took the dropped connection back already
            pass
        fresh = await self.pool.acquire()
        try:
            await fresh.add_listener(NOTIFY_CHANNEL, callback)
        except BaseException:
            await self.pool.release(fresh)
            raise
        with contextlib.suppress(Exception):
            await self.pool.release(listener)
        return fresh

    # -- read ---------------------------------------------------------------------------

    async def read_stream(
        self,
        stream_id: str,
        *,
        from_version: int = 1,
        to_version: int | None = None,
        as_of: datetime | None = None,
        conn: asyncpg.Connection | None = None,
    ) -> list[RecordedEvent]:
        """A stream's events in version order, optionally up to a version or a time; an
        archived stream is read back from the archive (when the store has one)."""
        runner = conn if conn is not None else self.pool
        rows = await runner.fetch(SQL["read_stream"], stream_id, from_version, to_version, as_of)
        if not rows and self.archive is not None:
            archived = await self.archive.read_archived(runner, stream_id)
            if archived is not None:
                return [
                    e
                    for e in archived
                    if e.stream_version >= from_version
                    and (to_version is None or e.stream_version <= to_version)
                    and (as_of is None or e.recorded_at <= as_of)
                ]
        return [RecordedEvent.from_record(r) for r in rows]

    async def stream_version(self, stream_id: str) -> int:
        rows = await self.pool.fetch(SQL["stream_heads"], [stream_id])
        return int(rows[0]["stream_version"]) if rows else 0

    async def read_after(
        self,
        after: Position,
        *,
        limit: int = 1000,
        conn: asyncpg.Connection | None = None,
        categories: Sequence[str] | None = None,
        payload_types: Sequence[str] | None = None,
    ) -> list[RecordedEvent]:
        """The next page of the global log after ``after``, never skipping a late commit
        (optionally only events of ``categories``; with ``payload_types`` too, only events of
        those types carry their payload, metadata and hashes: the rest are headers)."""
        runner = conn if conn is not None else self.pool
        if categories and payload_types is not None:
            rows = await runner.fetch(
                SQL["tail_categories_payloads"],
                str(after.tx_id),
                after.global_position,
                limit,
                list(categories),
                list(payload_types),
            )
        elif categories:
            rows = await runner.fetch(
                SQL["tail_categories"],
                str(after.tx_id),
                after.global_position,
                limit,
                list(categories),
            )
        else:
            rows = await runner.fetch(SQL["tail"], str(after.tx_id), after.global_position, limit)
        build = RecordedEvent.from_record
        return [build(r) for r in rows]

    async def tail(
        self,
        after: Position = Position(),
        *,
        batch: int = 1000,
        poll_interval: float = 1.0,
        stop: asyncio.Event | None = None,
    ) -> AsyncIterator[list[RecordedEvent]]:
        """Pages of new events until ``stop``: LISTEN/NOTIFY wakes it, polling backs it."""
        wake = asyncio.Event()

        def _on_notify(*_: object) -> None:
            wake.set()

        listener = await self.pool.acquire()
        try:
            await listener.add_listener(NOTIFY_CHANNEL, _on_notify)
            while stop is None or not stop.is_set():
                wake.clear()
                page = await self.read_after(after, limit=batch)
                if page:
                    after = page[-1].position
                    yield page
                    if len(page) == batch:
                        continue
                    # A late commit may still be running; look again soon.
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), poll_interval)
        finally:
            with contextlib.suppress(Exception):
                await listener.remove_listener(NOTIFY_CHANNEL, _on_notify)
            await self.pool.release(listener)
