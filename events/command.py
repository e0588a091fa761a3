"""One command: read, fold to a state, decide, append at the version read (a typed strategy).

The services' writes all take this shape (after ``eventsourcing``'s application command:
get the aggregate, trigger, save at its version)::

    done = await execute(store, stream_id, fold, decide, command, metadata=Metadata(actor=a))

- ``fold`` turns the stream's recorded events into the state (``None``-able: no stream yet);
- ``decide(state, command)`` returns the new events (none: nothing to do) or raises a typed
  rejection (a :class:`~hookproof.errors.HookproofError` with its reason code), which the
  caller receives as is; nothing is appended then;
- the events are appended with the stream's version as expected (no stream: ``no_stream``).

How two commands on the same stream are kept apart is the ``strategy``:

- :class:`Retry` (optimistic): no lock; when the append meets a
  :class:`~hookproof.errors.ConcurrencyConflict` (another writer got there first) the stream is
  read and the command decided again, ``attempts`` times in all; the last conflict is raised.
- :class:`Lock` (pessimistic): read, decide and append in one transaction holding a
  transaction-level advisory lock on a key (the stream id unless given), so commands under the
  same key run one at a time across engines; a conflict (a writer that takes no lock) is raised
  at once.

:func:`execute_many` is the same over a read of many streams (the key ring folds the ``key``
category) whose decision names its streams and their expected versions.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import asyncpg

from hookproof.errors import ConcurrencyConflict

from .catalogue import Event
from .queries import EVENT_QUERIES
from .store import NO_STREAM, EventStore, Metadata, RecordedEvent, StreamAppend

__all__ = [
    "Decide",
    "Effects",
    "Executed",
    "Fold",
    "Lock",
    "Prepare",
    "Read",
    "Retry",
    "Strategy",
    "execute",
    "execute_many",
]

SQL = EVENT_QUERIES.named("lock_streams")

S = TypeVar("S")
C = TypeVar("C")

#: the stream's (or streams') recorded events -> the state a decision is taken on
Fold = Callable[[list[RecordedEvent]], S]
#: ``(state, command)`` -> the new events, or raises a typed rejection
Decide = Callable[[S, C], Sequence[Event]]
#: ``(state, command)`` -> the command completed with what deciding needs from elsewhere (a
#: key, a secret); awaited on every attempt before ``decide``, given the command as the
#: previous attempt left it (so what it found may stand)
Prepare = Callable[[S, C], Awaitable[C]]
#: ``(conn, state, recorded)``: work that commits or fails with the appended events (a
#: projection row, sealed key material), run on the append's transaction after the append,
#: only when something was appended
Effects = Callable[[asyncpg.Connection, S, list[RecordedEvent]], Awaitable[None]]
#: the events a command over many streams decides on, read on ``conn`` (None: the pool)
Read = Callable[[asyncpg.Connection | None], Awaitable[list[RecordedEvent]]]


@dataclass(frozen=True, slots=True)
class Retry:
    """Optimistic concurrency: decide again after a conflict, ``attempts`` tries in all."""

    attempts: int = 5

    def __post_init__(self) -> None:
        if isinstance(self.attempts, bool) or not isinstance(self.attempts, int):
            raise TypeError("attempts must be an integer")
        if self.attempts < 1:
            raise ValueError("attempts must be at least 1")


@dataclass(frozen=True, slots=True)
class Lock:
    """Pessimistic: one transaction holding the advisory lock of ``key`` (by default the
    stream id, the lock an ``any`` append to that stream takes too)."""

    key: str | None = None


Strategy = Retry | Lock


@dataclass(frozen=True, slots=True)
class Executed(Generic[S]):
    """What a command did: the state it decided on, the events read, the events appended
    (empty: it decided there was nothing to do) and the attempts it took."""

    state: S
    events: list[RecordedEvent]
    recorded: list[RecordedEvent] = field(default_factory=list)
    attempts: int = 1

    @property
    def changed(self) -> bool:
        return bool(self.recorded)

    @property
    def history(self) -> list[RecordedEvent]:
        """The events read followed by those appended (fold it for the state after)."""
        return [*self.events, *self.recorded]


#: ``events read -> (state, appends)`` for one attempt
_Plan = Callable[[list[RecordedEvent]], Awaitable[tuple[S, Sequence[StreamAppend]]]]


async def execute(
    store: EventStore,
    stream_id: str,
    fold: Fold[S],
    decide: Decide[S, C],
    command: C,
    *,
    strategy: Strategy = Retry(),
    metadata: Metadata = Metadata(),
    conn: asyncpg.Connection | None = None,
    prepare: Prepare[S, C] | None = None,
    effects: Effects[S] | None = None,
) -> Executed[S]:
    """Run ``command`` on ``stream_id``: read, fold, decide, append at the version read.

    With ``conn``, inside the caller's transaction (a savepoint: a refused append leaves it
    usable). Raises the decision's rejection, or :class:`ConcurrencyConflict` when the
    strategy gives up.
    """
    current = command

    async def plan(events: list[RecordedEvent]) -> tuple[S, Sequence[StreamAppend]]:
        nonlocal current
        state = fold(events)
        if prepare is not None:
            current = await prepare(state, current)
        new = decide(state, current)
        if not new:
            return state, ()
        expected = events[-1].stream_version if events else NO_STREAM
        return state, (StreamAppend(stream_id, new, expected, metadata),)

    def read(c: asyncpg.Connection | None) -> Awaitable[list[RecordedEvent]]:
        return store.read_stream(stream_id, conn=c)

    key = (strategy.key or stream_id) if isinstance(strategy, Lock) else None
    return await _run(store, read, plan, strategy, key, conn, effects)


async def execute_many(
    store: EventStore,
    read: Read,
    fold: Fold[S],
    decide: Callable[[S, C], Sequence[StreamAppend]],
    command: C,
    *,
    strategy: Strategy,
    conn: asyncpg.Connection | None = None,
    effects: Effects[S] | None = None,
) -> Executed[S]:
    """Run ``command`` over what ``read`` returns: ``decide`` names each stream it appends to
    with its expected version and metadata (all appended in one batch, or none). A
    :class:`Lock` needs its ``key`` here (there is no one stream to lock)."""
    if isinstance(strategy, Lock) and not strategy.key:
        raise ValueError("a lock over many streams needs a key")

    async def plan(events: list[RecordedEvent]) -> tuple[S, Sequence[StreamAppend]]:
        state = fold(events)
        return state, [a for a in decide(state, command) if a.events]

    key = strategy.key if isinstance(strategy, Lock) else None
    return await _run(store, read, plan, strategy, key, conn, effects)


async def _run(
    store: EventStore,
    read: Read,
    plan: _Plan[S],
    strategy: Strategy,
    key: str | None,
    conn: asyncpg.Connection | None,
    effects: Effects[S] | None,
) -> Executed[S]:
    if isinstance(strategy, Lock):
        assert key is not None
        async with store.transaction(conn) as locked:
            return await _locked(store, locked, key, read, plan, effects)
    for attempt in range(1, strategy.attempts + 1):
        events = await read(conn)
        state, appends = await plan(events)
        if not appends:
            return Executed(state, events, [], attempt)
        try:
            recorded = await _append(store, conn, state, appends, effects)
        except ConcurrencyConflict:
            if attempt == strategy.attempts:
                raise
            continue
        return Executed(state, events, recorded, attempt)
    raise AssertionError("unreachable")


async def _locked(
    store: EventStore,
    conn: asyncpg.Connection,
    key: str,
    read: Read,
    plan: _Plan[S],
    effects: Effects[S] | None,
) -> Executed[S]:
    await conn.execute(SQL["lock_streams"], [key])
    events = await read(conn)
    state, appends = await plan(events)
    if not appends:
        return Executed(state, events)
    recorded = await store.append(appends, conn=conn)
    if effects is not None:
        await effects(conn, state, recorded)
    return Executed(state, events, recorded)


async def _append(
    store: EventStore,
    conn: asyncpg.Connection | None,
    state: S,
    appends: Sequence[StreamAppend],
    effects: Effects[S] | None,
) -> list[RecordedEvent]:
    if effects is None:
        return await store.append(appends, conn=conn)
    async with store.transaction(conn) as tx:
        recorded = await store.append(appends, conn=tx)
        await effects(tx, state, recorded)
        return recorded
