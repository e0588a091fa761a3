"""Idempotent, ordered application of delivered events.

An event is applied at most once per event id, and per aggregate strictly in
``aggregateVersion`` order: a version that arrives early is buffered (durably, with the
SQLite store) until the gap before it is filled. The application's effect runs inside the
store's transaction; with ``SqliteStore`` an effect written through ``store.connection``
commits atomically with the "applied" record, so a crash never applies an event twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import sqlite3
import threading
import uuid
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Protocol

from .digest import content_digest

__all__ = [
    "TEST_EVENT_PREFIX",
    "AppliedRecord",
    "ApplierStore",
    "ApplyOutcome",
    "Event",
    "EventApplier",
    "InMemoryStore",
    "Outcome",
    "RejectEvent",
    "SqliteStore",
]

#: the eventIds of the engine's test events ("Send a test event", ``POST
#: /v1/subscriptions/{id}/test-events``): a space the engine reserves (no tenant's event can
#: take such an id), so a verified delivery with one is a test of the path, not a fact to apply
TEST_EVENT_PREFIX = "hookproof-test-"


class Outcome(StrEnum):
    APPLIED = "applied"
    REJECTED = "rejected"
    DUPLICATE = "duplicate"
    BUFFERED = "buffered"
    STALE = "stale"
    CONFLICT = "conflict"


class RejectEvent(Exception):
    """Raise from the handler to record a permanent, ordered ``rejected`` result."""


@dataclass(frozen=True, slots=True)
class Event:
    """A delivered event (the delivery body plus the delivery identity)."""

    event_id: str
    type: str
    version: str
    aggregate_id: str
    aggregate_version: int
    occurred_at: str
    payload: Any
    payload_digest: str
    delivery_id: str = ""
    subscription_id: str = ""
    generation: int | None = None
    traceparent: str | None = None

    @classmethod
    def from_delivery(cls, body: bytes, headers: Any = None) -> Event:
        """Build from the exact delivery body bytes (and the Webhook-* headers, if given)."""
        doc = json.loads(body)
        if not isinstance(doc, dict):
            raise ValueError("delivery body is not a JSON object")
        h = {str(k).lower(): str(v).strip() for k, v in dict(headers or {}).items()}
        version = doc.get("aggregateVersion")
        if type(version) is not int or version < 0:
            raise ValueError("aggregateVersion must be a non-negative integer")
        for name in ("eventId", "aggregateId", "type"):
            if not isinstance(doc.get(name), str) or not doc[name]:
                raise ValueError(f"{name} must be a non-empty string")
        if "webhook-id" in h and h["webhook-id"] != doc["eventId"]:
            raise ValueError("Webhook-Id differs from the body's eventId")
        gen = h.get("webhook-generation")
        return cls(
            event_id=doc["eventId"],
            type=doc["type"],
            version=str(doc.get("version", "")),
            aggregate_id=doc["aggregateId"],
            aggregate_version=version,
            occurred_at=str(doc.get("occurredAt", "")),
            payload=doc.get("payload"),
            payload_digest=content_digest(body),
            delivery_id=h.get("webhook-delivery-id", ""),
            subscription_id=h.get("webhook-subscription", ""),
            generation=int(gen) if gen and gen.isdigit() else None,
            traceparent=h.get("traceparent"),
        )

    @property
    def test(self) -> bool:
        """A test event (its id in :data:`TEST_EVENT_PREFIX`'s reserved space)."""
        return self.event_id.startswith(TEST_EVENT_PREFIX)

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Event:
        return cls(**json.loads(text))


@dataclass(frozen=True, slots=True)
class AppliedRecord:
    """What the store remembers about an event it consumed."""

    event_id: str
    aggregate_id: str
    aggregate_version: int
    payload_digest: str
    result: str
    operation_id: str
    applied_at: str
    delivery_id: str = ""
    subscription_id: str = ""


@dataclass(frozen=True, slots=True)
class ApplyOutcome:
    """The outcome for one event (``record`` set once it was consumed)."""

    event: Event
    outcome: Outcome
    record: AppliedRecord | None = None
    detail: str = ""


def _conflict(event: Event, record: AppliedRecord | None) -> ApplyOutcome:
    """The event reuses a known event id (consumed: ``record``; buffered: None) with another
    payload: refused for good."""
    return ApplyOutcome(event, Outcome.CONFLICT, record, "same event id, different payload")


class ApplierStore(Protocol):
    """Persistence for the applier. All calls happen under the applier's lock."""

    def transaction(self) -> contextlib.AbstractContextManager[None]: ...
    def get_record(self, event_id: str) -> AppliedRecord | None: ...
    def last_version(self, aggregate_id: str) -> int | None: ...
    def set_last_version(self, aggregate_id: str, version: int) -> None: ...
    def add_record(self, record: AppliedRecord) -> None: ...
    def buffer(self, event: Event) -> None: ...
    def buffered(self, aggregate_id: str, version: int) -> Event | None: ...
    def buffered_by_id(self, event_id: str) -> Event | None: ...
    def unbuffer(self, aggregate_id: str, version: int) -> None: ...
    def buffered_count(self, aggregate_id: str) -> int: ...


class InMemoryStore:
    """Process-local store (tests, or subscribers whose effects are themselves idempotent)."""

    def __init__(self) -> None:
        self.records: dict[str, AppliedRecord] = {}
        self.versions: dict[str, int] = {}
        self.pending: dict[tuple[str, int], Event] = {}

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        snapshot = (dict(self.records), dict(self.versions), dict(self.pending))
        try:
            yield
        except BaseException:
            self.records, self.versions, self.pending = snapshot
            raise

    def get_record(self, event_id: str) -> AppliedRecord | None:
        return self.records.get(event_id)

    def last_version(self, aggregate_id: str) -> int | None:
        return self.versions.get(aggregate_id)

    def set_last_version(self, aggregate_id: str, version: int) -> None:
        self.versions[aggregate_id] = version

    def add_record(self, record: AppliedRecord) -> None:
        self.records[record.event_id] = record

    def buffer(self, event: Event) -> None:
        self.pending[(event.aggregate_id, event.aggregate_version)] = event

    def buffered(self, aggregate_id: str, version: int) -> Event | None:
        return self.pending.get((aggregate_id, version))

    def buffered_by_id(self, event_id: str) -> Event | None:
        return next((e for e in self.pending.values() if e.event_id == event_id), None)

    def unbuffer(self, aggregate_id: str, version: int) -> None:
        self.pending.pop((aggregate_id, version), None)

    def buffered_count(self, aggregate_id: str) -> int:
        return sum(1 for a, _ in self.pending if a == aggregate_id)


_SCHEMA = """
CREATE TABLE IF NOT EXISTS hookproof_applied (
  event_id TEXT PRIMARY KEY, aggregate_id TEXT NOT NULL, aggregate_version INTEGER NOT NULL,
  payload_digest TEXT NOT NULL, result TEXT NOT NULL, operation_id TEXT NOT NULL,
  applied_at TEXT NOT NULL, delivery_id TEXT NOT NULL, subscription_id TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS hookproof_aggregates (
  aggregate_id TEXT PRIMARY KEY, last_version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS hookproof_buffer (
  aggregate_id TEXT NOT NULL, aggregate_version INTEGER NOT NULL, event_id TEXT NOT NULL UNIQUE,
  event TEXT NOT NULL, PRIMARY KEY (aggregate_id, aggregate_version));
"""


class SqliteStore:
    """Durable store on stdlib ``sqlite3``; write effects through ``connection`` for atomicity."""

    def __init__(self, path: str = ":memory:") -> None:
        self.connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.connection.execute(
            "PRAGMA journal_mode=WAL" if path != ":memory:" else "PRAGMA journal_mode=MEMORY"
        )
        self.connection.executescript(_SCHEMA)
        self._depth = 0
        self._lock = threading.RLock()

    def close(self) -> None:
        self.connection.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        with self._lock:
            outer = self._depth == 0
            name = f"sp{self._depth}"
            self.connection.execute("BEGIN IMMEDIATE" if outer else f"SAVEPOINT {name}")
            self._depth += 1
            try:
                yield
            except BaseException:
                self._depth -= 1
                self.connection.execute("ROLLBACK" if outer else f"ROLLBACK TO {name}")
                if not outer:
                    self.connection.execute(f"RELEASE {name}")
                raise
            self._depth -= 1
            self.connection.execute("COMMIT" if outer else f"RELEASE {name}")

    def get_record(self, event_id: str) -> AppliedRecord | None:
        row = self.connection.execute(
            "SELECT event_id, aggregate_id, aggregate_version, payload_digest, result,"
            " operation_id, applied_at, delivery_id, subscription_id FROM hookproof_applied"
            " WHERE event_id = ?",
            (event_id,),
        ).fetchone()
        return AppliedRecord(*row) if row else None

    def last_version(self, aggregate_id: str) -> int | None:
        row = self.connection.execute(
            "SELECT last_version FROM hookproof_aggregates WHERE aggregate_id = ?", (aggregate_id,)
        ).fetchone()
        return None if row is None else int(row[0])

    def set_last_version(self, aggregate_id: str, version: int) -> None:
        self.connection.execute(
            "INSERT INTO hookproof_aggregates VALUES (?, ?) ON CONFLICT(aggregate_id)"
            " DO UPDATE SET last_version = excluded.last_version",
            (aggregate_id, version),
        )

    def add_record(self, record: AppliedRecord) -> None:
        self.connection.execute(
            "INSERT INTO hookproof_applied VALUES (?,?,?,?,?,?,?,?,?)",
            tuple(asdict(record).values()),
        )

    def buffer(self, event: Event) -> None:
        self.connection.execute(
            "INSERT INTO hookproof_buffer VALUES (?, ?, ?, ?)",
            (event.aggregate_id, event.aggregate_version, event.event_id, event.to_json()),
        )

    def buffered(self, aggregate_id: str, version: int) -> Event | None:
        row = self.connection.execute(
            "SELECT event FROM hookproof_buffer WHERE aggregate_id = ? AND aggregate_version = ?",
            (aggregate_id, version),
        ).fetchone()
        return Event.from_json(row[0]) if row else None

    def buffered_by_id(self, event_id: str) -> Event | None:
        row = self.connection.execute(
            "SELECT event FROM hookproof_buffer WHERE event_id = ?", (event_id,)
        ).fetchone()
        return Event.from_json(row[0]) if row else None

    def unbuffer(self, aggregate_id: str, version: int) -> None:
        self.connection.execute(
            "DELETE FROM hookproof_buffer WHERE aggregate_id = ? AND aggregate_version = ?",
            (aggregate_id, version),
        )

    def buffered_count(self, aggregate_id: str) -> int:
        return int(
            self.connection.execute(
                "SELECT count(*) FROM hookproof_buffer WHERE aggregate_id = ?", (aggregate_id,)
            ).fetchone()[0]
        )


Handler = Callable[[Event], Awaitable[Any] | Any]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class EventApplier:
    """Apply events once by id and in aggregate-version order.

    ``first_version`` is the version expected first for an aggregate never seen before (use
    ``start_aggregate`` to join a stream mid-way). While it is above 0, version 0 means no
    order (a CloudEvent published without ``aggregateversion``): such an event is applied once
    by id and neither waits for nor moves its aggregate's versions. At most ``max_buffered``
    early versions are held per aggregate; beyond that ``submit`` reports CONFLICT so the
    sender retries later.
    """

    handler: Handler
    store: ApplierStore = field(default_factory=InMemoryStore)
    first_version: int = 1
    max_buffered: int = 1000
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock, init=False, repr=False)

    def start_aggregate(self, aggregate_id: str, last_applied_version: int) -> None:
        """Declare versions up to *last_applied_version* as already consumed."""
        with self.store.transaction():
            self.store.set_last_version(aggregate_id, last_applied_version)

    async def submit(self, event: Event) -> list[ApplyOutcome]:
        """Offer one delivered event. The first outcome is for *event*; any that follow are
        buffered events it unblocked, applied in version order. Handler errors other than
        ``RejectEvent`` propagate (nothing is recorded; the sender retries)."""
        async with self._lock:
            store = self.store
            record = store.get_record(event.event_id)
            if record is not None:
                if record.payload_digest != event.payload_digest:
                    return [_conflict(event, record)]
                return [ApplyOutcome(event, Outcome.DUPLICATE, record)]
            pending = store.buffered_by_id(event.event_id)
            if pending is not None:
                if pending.payload_digest != event.payload_digest:
                    return [_conflict(event, None)]
                return [ApplyOutcome(event, Outcome.BUFFERED)]
            if event.aggregate_version == 0 < self.first_version:
                # version 0 carries no order (a CloudEvent published without
                # aggregateversion): applied once by id, never buffered, never stale
                return [await self._apply(event, ordered=False)]
            last = store.last_version(event.aggregate_id)
            expected = self.first_version if last is None else last + 1
            if event.aggregate_version < expected:
                return [
                    ApplyOutcome(event, Outcome.STALE, None, f"aggregate already at version {last}")
                ]
            if event.aggregate_version > expected:
                other = store.buffered(event.aggregate_id, event.aggregate_version)
                if other is not None:
                    return [
                        ApplyOutcome(
                            event,
                            Outcome.CONFLICT,
                            None,
                            "another event holds this aggregate version",
                        )
                    ]
                if store.buffered_count(event.aggregate_id) >= self.max_buffered:
                    return [ApplyOutcome(event, Outcome.CONFLICT, None, "buffer full")]
                with store.transaction():
                    store.buffer(event)
                return [
                    ApplyOutcome(event, Outcome.BUFFERED, None, f"waiting for version {expected}")
                ]
            outcomes = [await self._apply(event)]
            nxt = event.aggregate_version + 1
            while (queued := store.buffered(event.aggregate_id, nxt)) is not None:
                outcomes.append(await self._apply(queued))
                nxt += 1
            return outcomes

    async def _apply(self, event: Event, *, ordered: bool = True) -> ApplyOutcome:
        store = self.store
        with store.transaction():
            result = Outcome.APPLIED
            detail = ""
            try:
                with store.transaction():  # nested: a rejection undoes partial effects only
                    out = self.handler(event)
                    if inspect.isawaitable(out):
                        await out
            except RejectEvent as exc:
                result, detail = Outcome.REJECTED, str(exc)
            record = AppliedRecord(
                event.event_id,
                event.aggregate_id,
                event.aggregate_version,
                event.payload_digest,
                str(result),
                str(uuid.uuid4()),
                _now(),
                event.delivery_id,
                event.subscription_id,
            )
            store.add_record(record)
            if ordered:
                store.set_last_version(event.aggregate_id, event.aggregate_version)
                store.unbuffer(event.aggregate_id, event.aggregate_version)
        return ApplyOutcome(event, result, record, detail)
