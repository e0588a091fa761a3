"""The stream-command helper (``events/command.py``) alone, against a real Postgres."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import asyncpg
import pytest

from hookproof.errors import ConcurrencyConflict, ValidationError
from hookproof.events import NO_STREAM, Event, EventStore, Metadata, RecordedEvent, StreamAppend
from hookproof.events.command import Executed, Lock, Retry, execute, execute_many

from .sample_events import ThingHappened

STREAM = "thing-counter"


def count_of(events: list[RecordedEvent]) -> int:
    """The fold: how many events the stream holds."""
    return len(events)


def next_one(state: int, command: str) -> list[Event]:
    """The decision: one more event, numbered after the state."""
    return [ThingHappened(n=state + 1, note=command)]


async def notes(store: EventStore, stream: str = STREAM) -> list[tuple[int, str]]:
    out = []
    for r in await store.read_stream(stream):
        e = r.decode()
        assert isinstance(e, ThingHappened)
        out.append((e.n, e.note))
    return out


async def rival(store: EventStore, note: str = "rival") -> None:
    """Another writer appending to the stream at its current version (no lock taken)."""
    version = await store.stream_version(STREAM)
    await store.append(
        [
            StreamAppend(
                STREAM,
                [ThingHappened(n=version + 1, note=note)],
                version if version else NO_STREAM,
            )
        ]
    )


async def test_a_command_folds_decides_and_appends_at_the_version_read(
    pool: asyncpg.Pool,
) -> None:
    store = EventStore(pool)
    first = await execute(store, STREAM, count_of, next_one, "a", metadata=Metadata(actor="t"))
    second = await execute(store, STREAM, count_of, next_one, "b")
    assert (first.state, first.attempts, first.changed) == (0, 1, True)
    assert [r.stream_version for r in second.recorded] == [2] and second.state == 1
    assert second.history == [*second.events, *second.recorded]
    assert await notes(store) == [(1, "a"), (2, "b")]
    assert (await store.read_stream(STREAM))[0].meta() == Metadata(actor="t")


async def test_a_conflict_is_decided_again_on_the_new_stream_and_then_appends(
    pool: asyncpg.Pool,
) -> None:
    store = EventStore(pool)
    seen: list[int] = []

    async def prepare(state: int, command: str) -> str:
        seen.append(state)
        if len(seen) == 1:  # between this command's read and its append, a rival writes
            await rival(store)
        return command

    done = await execute(
        store, STREAM, count_of, next_one, "mine", strategy=Retry(3), prepare=prepare
    )
    assert done.attempts == 2 and seen == [0, 1]
    assert done.state == 1 and [r.stream_version for r in done.recorded] == [2]
    assert await notes(store) == [(1, "rival"), (2, "mine")]


async def test_retries_are_bounded_and_end_in_the_typed_conflict(pool: asyncpg.Pool) -> None:
    store = EventStore(pool)
    calls = 0

    async def prepare(state: int, command: str) -> str:
        nonlocal calls
        calls += 1
        await rival(store, f"rival-{calls}")  # every attempt loses its race
        return command

    with pytest.raises(ConcurrencyConflict) as err:
        await execute(store, STREAM, count_of, next_one, "mine", strategy=Retry(3), prepare=prepare)
    assert calls == 3
    assert err.value.code == "concurrency_conflict" and err.value.status == 409
    assert err.value.stream_id == STREAM
    assert await notes(store) == [(1, "rival-1"), (2, "rival-2"), (3, "rival-3")]


@pytest.mark.parametrize("strategy", [Retry(), Lock()], ids=["retry", "lock"])
async def test_a_rejection_appends_nothing_and_reaches_the_caller_as_is(
    pool: asyncpg.Pool, strategy: Retry | Lock
) -> None:
    store = EventStore(pool)
    await execute(store, STREAM, count_of, next_one, "a", strategy=strategy)
    effects: list[int] = []

    def refuse(state: int, command: str) -> list[Event]:
        raise ValidationError("no more", field="n", code="counter_full")

    async def effect(conn: asyncpg.Connection, state: int, recorded: list[RecordedEvent]) -> None:
        effects.append(state)

    with pytest.raises(ValidationError) as err:
        await execute(store, STREAM, count_of, refuse, "b", strategy=strategy, effects=effect)
    assert err.value.code == "counter_full" and err.value.status == 400
    assert await notes(store) == [(1, "a")] and effects == []


@pytest.mark.parametrize("strategy", [Retry(), Lock()], ids=["retry", "lock"])
async def test_deciding_nothing_appends_nothing(pool: asyncpg.Pool, strategy: Retry | Lock) -> None:
    store = EventStore(pool)
    await execute(store, STREAM, count_of, next_one, "a")
    done = await execute(store, STREAM, count_of, lambda s, c: [], "b", strategy=strategy)
    assert done == Executed(1, done.events, [], 1) and not done.changed
    assert await store.stream_version(STREAM) == 1


async def test_the_lock_runs_two_concurrent_commands_one_after_the_other(
    pool: asyncpg.Pool,
) -> None:
    """The second command reads only once the first committed: both append, no conflict.
    The same interleaving without the lock (one attempt) makes the second one conflict."""
    store = EventStore(pool)
    inside_a = asyncio.Event()
    release_a = asyncio.Event()
    prepared: list[str] = []

    async def prepare(state: int, command: str) -> str:
        prepared.append(command)
        if command == "a":
            inside_a.set()
            await release_a.wait()
        return command

    async def waiting_for_a_lock() -> int:
        return int(
            await pool.fetchval(
                "SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database"
                " WHERE l.locktype = 'advisory' AND NOT l.granted"
                " AND d.datname = current_database()"
            )
        )

    def run(command: str, strategy: Retry | Lock) -> asyncio.Task[Executed[int]]:
        return asyncio.create_task(
            execute(store, STREAM, count_of, next_one, command, strategy=strategy, prepare=prepare)
        )

    a = run("a", Lock())
    await inside_a.wait()
    b = run("b", Lock())
    for _ in range(500):  # b's transaction reaches the lock and waits there
        if await waiting_for_a_lock():
            break
        await asyncio.sleep(0.01)
    assert await waiting_for_a_lock() == 1
    assert prepared == ["a"], "b must not read the stream while a holds the lock"
    release_a.set()
    done_a, done_b = await asyncio.gather(a, b)
    assert (done_a.state, done_a.attempts, done_b.state, done_b.attempts) == (0, 1, 1, 1)
    assert await notes(store) == [(1, "a"), (2, "b")]

    # without the lock, the same interleaving: b reads version 2 while a holds its read of 2
    inside_a.clear()
    release_a.clear()
    prepared.clear()
    a = run("a", Retry(1))
    await inside_a.wait()
    done_b = await execute(store, STREAM, count_of, next_one, "b", strategy=Retry(1))
    release_a.set()
    with pytest.raises(ConcurrencyConflict):
        await a
    assert await notes(store) == [(1, "a"), (2, "b"), (3, "b")]


async def test_under_the_lock_a_writer_without_it_is_a_conflict_at_once(
    pool: asyncpg.Pool,
) -> None:
    store = EventStore(pool)
    calls = 0

    async def prepare(state: int, command: str) -> str:
        nonlocal calls
        calls += 1
        await rival(store)  # on another connection, taking no lock
        return command

    with pytest.raises(ConcurrencyConflict):
        await execute(store, STREAM, count_of, next_one, "mine", strategy=Lock(), prepare=prepare)
    assert calls == 1
    assert await notes(store) == [(1, "rival")]


async def test_what_prepare_found_stands_for_the_next_attempt(pool: asyncpg.Pool) -> None:
    store = EventStore(pool)
    given: list[str] = []

    async def prepare(state: int, command: str) -> str:
        given.append(command)
        if len(given) == 1:
            await rival(store)
        return command if command.endswith("+") else command + "+"

    await execute(store, STREAM, count_of, next_one, "c", prepare=prepare)
    assert given == ["c", "c+"]
    assert await notes(store) == [(1, "rival"), (2, "c+")]


@pytest.mark.parametrize("strategy", [Retry(), Lock()], ids=["retry", "lock"])
async def test_effects_commit_with_the_events_or_not_at_all(
    pool: asyncpg.Pool, strategy: Retry | Lock
) -> None:
    store = EventStore(pool)
    ran: list[tuple[int, list[int]]] = []

    async def effect(conn: asyncpg.Connection, state: int, recorded: list[RecordedEvent]) -> None:
        assert conn.is_in_transaction()
        ran.append((state, [r.stream_version for r in recorded]))
        if len(ran) == 2:
            raise ValidationError("the projection refused", code="effect_failed")

    await execute(store, STREAM, count_of, next_one, "a", strategy=strategy, effects=effect)
    with pytest.raises(ValidationError):
        await execute(store, STREAM, count_of, next_one, "b", strategy=strategy, effects=effect)
    assert ran == [(0, [1]), (1, [2])]
    assert await notes(store) == [(1, "a")], "the failed effect took its events with it"


@pytest.mark.parametrize("strategy", [Retry(), Lock()], ids=["retry", "lock"])
async def test_in_the_callers_transaction_it_goes_with_the_caller(
    pool: asyncpg.Pool, strategy: Retry | Lock
) -> None:
    store = EventStore(pool)

    class Abort(Exception):
        pass

    with pytest.raises(Abort):
        async with pool.acquire() as conn, conn.transaction():
            done = await execute(
                store, STREAM, count_of, next_one, "a", strategy=strategy, conn=conn
            )
            assert done.changed and await store.read_stream(STREAM, conn=conn) == done.recorded
            raise Abort
    assert await store.read_stream(STREAM) == []


async def test_a_command_over_many_streams_appends_all_or_none(pool: asyncpg.Pool) -> None:
    """``execute_many``: one read of several streams, appends named by the decision."""
    store = EventStore(pool)

    async def read(conn: asyncpg.Connection | None) -> list[RecordedEvent]:
        return [
            *(await store.read_stream("pair-a", conn=conn)),
            *(await store.read_stream("pair-b", conn=conn)),
        ]

    def versions(events: list[RecordedEvent]) -> dict[str, int]:
        return {r.stream_id: r.stream_version for r in events}

    def both(state: dict[str, int], n: int) -> Sequence[StreamAppend]:
        return [
            StreamAppend(s, [ThingHappened(n=n)], state.get(s, NO_STREAM), Metadata(actor="x"))
            for s in ("pair-a", "pair-b")
        ]

    with pytest.raises(ValueError, match="needs a key"):
        await execute_many(store, read, versions, both, 1, strategy=Lock())
    done = await execute_many(store, read, versions, both, 1, strategy=Lock("pairs"))
    assert done.state == {} and [r.stream_id for r in done.recorded] == ["pair-a", "pair-b"]
    done = await execute_many(store, read, versions, both, 2, strategy=Retry())
    assert done.state == {"pair-a": 1, "pair-b": 1} and len(done.recorded) == 2

    def stale(state: dict[str, int], n: int) -> Sequence[StreamAppend]:
        return [
            StreamAppend("pair-a", [ThingHappened(n=n)], state["pair-a"]),
            StreamAppend("pair-b", [ThingHappened(n=n)], 1),  # behind: refused, with pair-a's
        ]

    with pytest.raises(ConcurrencyConflict):
        await execute_many(store, read, versions, stale, 3, strategy=Lock("pairs"))
    assert await store.stream_version("pair-a") == 2 == await store.stream_version("pair-b")


def test_a_retry_strategy_tries_at_least_once() -> None:
    with pytest.raises(ValueError):
        Retry(0)
    with pytest.raises(TypeError):
        Retry(True)
