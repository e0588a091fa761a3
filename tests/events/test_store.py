"""The event store against a real Postgres.

Solo (after the parallel part, alone: Makefile): the tail reads only below the server's oldest
running transaction id, so another worker's open transaction on a shared server would hold
these tests' fresh events back."""

from __future__ import annotations

import asyncio
import uuid

import asyncpg
import pytest

from hookproof.errors import ConcurrencyConflict, ValidationError
from hookproof.events import (
    ANY,
    NO_STREAM,
    EventStore,
    MalformedEvent,
    Metadata,
    Position,
    StreamAppend,
    UnknownEventType,
    decode_event,
    verify_chain,
)

from .sample_events import ThingHappened, ThingRenamed

pytestmark = pytest.mark.solo


async def count(pool: asyncpg.Pool) -> int:
    return int(await pool.fetchval("SELECT count(*) FROM events"))


async def test_append_and_read_roundtrip(pool: asyncpg.Pool) -> None:
    store = EventStore(pool)
    meta = Metadata(actor="tenant:t1", correlation_id="c-1", trace_id="00-abc")
    rec = await store.append(
        [
            StreamAppend("thing-a", [ThingHappened(n=1), ThingHappened(n=2)], NO_STREAM, meta),
            StreamAppend("thing-b", [ThingHappened(n=3, note="x")], NO_STREAM),
        ]
    )
    assert [(r.stream_id, r.stream_version) for r in rec] == [
        ("thing-a", 1),
        ("thing-a", 2),
        ("thing-b", 1),
    ]
    assert len({r.tx_id for r in rec}) == 1, "one batch, one transaction"
    events = await store.read_stream("thing-a")
    assert [e.decode() for e in events] == [ThingHappened(n=1), ThingHappened(n=2)]
    assert events[0].meta() == meta
    assert events[1].prev_hash == events[0].hash
    assert verify_chain(events) is None
    await store.append([StreamAppend("thing-a", [ThingHappened(n=4)], 2)])
    assert [e.stream_version for e in await store.read_stream("thing-a", to_version=2)] == [1, 2]
    assert await store.stream_version("thing-a") == 3


async def test_expected_version_mismatch_writes_nothing(pool: asyncpg.Pool) -> None:
    store = EventStore(pool)
    await store.append([StreamAppend("thing-a", [ThingHappened(n=1)], NO_STREAM)])
    with pytest.raises(ConcurrencyConflict) as err:
        await store.append(
            [
                StreamAppend("thing-new", [ThingHappened(n=9)], NO_STREAM),
                StreamAppend("thing-a", [ThingHappened(n=2)], 5),
            ]
        )
    assert (err.value.stream_id, err.value.expected, err.value.actual) == ("thing-a", 5, 1)
    assert await count(pool) == 1
    assert await store.read_stream("thing-new") == []


async def test_known_head_is_not_read_and_a_stale_one_is_refused(pool: asyncpg.Pool) -> None:
    """``expected_hash``: the writer's own head continues the chain; a stale (version, hash)
    pair, a real event that is no longer the head, is still a conflict and writes nothing."""
    store = EventStore(pool)
    first = await store.append([StreamAppend("thing-a", [ThingHappened(n=1)], NO_STREAM)])
    head = first[-1]
    second = await store.append(
        [StreamAppend("thing-a", [ThingHappened(n=2)], 1, expected_hash=head.hash)]
    )
    assert second[0].stream_version == 2 and second[0].prev_hash == head.hash
    assert verify_chain(await store.read_stream("thing-a")) is None
    async with pool.acquire() as conn, conn.transaction():  # no savepoint in the caller's one
        third = await store.append(
            [StreamAppend("thing-a", [ThingHappened(n=3)], 2, expected_hash=second[0].hash)],
            conn=conn,
            savepoint=False,
        )
    assert third[0].prev_hash == second[0].hash
    with pytest.raises(ConcurrencyConflict) as err:
        await store.append(
            [
                StreamAppend("thing-new", [ThingHappened(n=9)], NO_STREAM),
                StreamAppend("thing-a", [ThingHappened(n=4)], 1, expected_hash=head.hash),
            ]
        )
    assert (err.value.stream_id, err.value.expected) == ("thing-a", 1)
    assert await count(pool) == 3
    assert await store.read_stream("thing-new") == []
    assert verify_chain(await store.read_stream("thing-a")) is None


async def test_concurrent_appends_one_wins(pool: asyncpg.Pool) -> None:
    store = EventStore(pool)
    await store.append([StreamAppend("thing-a", [ThingHappened(n=0)], NO_STREAM)])

    async def writer(i: int) -> str:
        try:
            await store.append(
                [
                    StreamAppend(f"side-{i}", [ThingHappened(n=i)], NO_STREAM),
                    StreamAppend("thing-a", [ThingHappened(n=i), ThingHappened(n=i)], 1),
                ]
            )
            return "won"
        except ConcurrencyConflict as exc:
            assert exc.stream_id == "thing-a" and exc.expected == 1 and exc.actual >= 1
            return "lost"

    results = await asyncio.gather(*(writer(i) for i in range(8)))
    assert sorted(results).count("won") == 1
    winner = results.index("won")
    assert await store.stream_version("thing-a") == 3
    for i in range(8):
        assert (await store.stream_version(f"side-{i}")) == (1 if i == winner else 0)


async def test_any_expected_version_appends_under_contention(pool: asyncpg.Pool) -> None:
    store = EventStore(pool)
    await asyncio.gather(
        *(store.append([StreamAppend("thing-any", [ThingHappened(n=i)], ANY)]) for i in range(10))
    )
    events = await store.read_stream("thing-any")
    assert [e.stream_version for e in events] == list(range(1, 11))
    assert verify_chain(events) is None


async def test_out_of_order_commit_is_never_skipped(pool: asyncpg.Pool, db_url: str) -> None:
    """A allocates an earlier position and commits after B; a tailing reader still gets A."""
    store = EventStore(pool)
    conn_a = await asyncpg.connect(db_url)
    conn_b = await asyncpg.connect(db_url)
    try:
        tx_a = conn_a.transaction()
        await tx_a.start()
        [a] = await store.append(
            [StreamAppend("race-a", [ThingHappened(n=1)], NO_STREAM)], conn=conn_a
        )
        [b] = await store.append(
            [StreamAppend("race-b", [ThingHappened(n=2)], NO_STREAM)], conn=conn_b
        )
        assert a.global_position < b.global_position
        # The naive reader ("position > last seen") sees B now and would never look back at A.
        naive = await pool.fetch("SELECT global_position FROM events ORDER BY global_position")
        assert [r[0] for r in naive] == [b.global_position]
        seen = await store.read_after(Position(), limit=100)
        assert seen == [], "B must stay invisible while an older transaction is still open"
        checkpoint = seen[-1].position if seen else Position()
        await tx_a.commit()
        after = await store.read_after(checkpoint, limit=100)
        assert [e.stream_id for e in after] == ["race-a", "race-b"]
    finally:
        await conn_a.close()
        await conn_b.close()


async def test_tail_is_woken_by_notify(pool: asyncpg.Pool) -> None:
    store = EventStore(pool)
    stop = asyncio.Event()
    got: list[str] = []

    async def consume() -> None:
        async for page in store.tail(poll_interval=30.0, stop=stop):
            got.extend(e.stream_id for e in page)
            if len(got) >= 2:
                stop.set()
                return

    task = asyncio.create_task(consume())
    await asyncio.sleep(0.2)
    await store.append([StreamAppend("tail-1", [ThingHappened(n=1)], NO_STREAM)])
    await store.append([StreamAppend("tail-2", [ThingHappened(n=2)], NO_STREAM)])
    await asyncio.wait_for(task, 10)  # far below the 30 s poll: NOTIFY woke it
    assert got == ["tail-1", "tail-2"]


@pytest.mark.parametrize(
    "statement",
    ["UPDATE events SET type = 'x'", "DELETE FROM events", "TRUNCATE events"],
)
async def test_log_is_append_only(pool: asyncpg.Pool, statement: str) -> None:
    store = EventStore(pool)
    await store.append([StreamAppend("thing-a", [ThingHappened(n=1)], NO_STREAM)])
    with pytest.raises(asyncpg.InsufficientPrivilegeError, match="append-only"):
        await pool.execute(statement)
    assert await count(pool) == 1


async def test_tampered_event_is_named(pool: asyncpg.Pool) -> None:
    store = EventStore(pool)
    await store.append(
        [StreamAppend("thing-t", [ThingHappened(n=i) for i in range(1, 5)], NO_STREAM)]
    )
    # Throwaway database: an operator with superuser rights edits one byte.
    async with pool.acquire() as conn:
        await conn.execute("ALTER TABLE events DISABLE TRIGGER events_refuse_update_delete")
        await conn.execute(
            "UPDATE events SET data = overlay(data placing '7'::bytea from position('3' in "
            "convert_from(data, 'UTF8')) for 1) WHERE stream_id = 'thing-t' AND stream_version = 3"
        )
    events = await store.read_stream("thing-t")
    assert b'"n":7' in events[2].data
    broken = verify_chain(events)
    assert broken is not None
    assert (broken.stream_id, broken.stream_version, broken.problem) == (
        "thing-t",
        3,
        "hash_mismatch",
    )
    sql = await pool.fetch("SELECT * FROM hookproof_verify_stream('thing-t')")
    assert [(r["stream_version"], r["problem"]) for r in sql] == [(3, "hash_mismatch")]
    intact = await pool.fetch("SELECT * FROM hookproof_verify_stream('missing')")
    assert intact == []


async def test_bad_input_is_typed_and_writes_nothing(pool: asyncpg.Pool) -> None:
    store = EventStore(pool)
    with pytest.raises(ValidationError) as err:
        await store.append([])
    assert err.value.code == "empty_batch"
    with pytest.raises(ValidationError) as err:
        await store.append([StreamAppend("thing-a", [], NO_STREAM)])
    assert err.value.code == "empty_batch"
    with pytest.raises(ValidationError) as err:
        await store.append([StreamAppend("thing-a", [ThingHappened(n=1)], -1)])
    assert err.value.code == "invalid_expected_version"
    with pytest.raises(ValidationError) as err:
        await store.append(
            [
                StreamAppend("thing-a", [ThingHappened(n=1)]),
                StreamAppend("thing-a", [ThingHappened(n=2)]),
            ]
        )
    assert err.value.code == "duplicate_stream_in_batch"
    with pytest.raises(UnknownEventType):
        await store.append([StreamAppend("thing-a", [object()])])  # type: ignore[list-item]
    assert await count(pool) == 0


def test_decode_errors_are_typed() -> None:
    with pytest.raises(UnknownEventType) as unknown:
        decode_event("no.such_type", 1, b"{}")
    assert unknown.value.code == "unknown_event_type"
    with pytest.raises(MalformedEvent):
        decode_event("test.thing_happened", 1, b'{"type":"test.thing_happened","n":"x"}')
    with pytest.raises(MalformedEvent):
        decode_event("test.thing_happened", 1, b"not json")
    with pytest.raises(MalformedEvent):
        decode_event("test.thing_happened", 9, b"{}")


def test_upcasting_old_shape() -> None:
    old = b'{"type":"test.thing_renamed","name":"n","why":"because"}'
    assert decode_event("test.thing_renamed", 1, old) == ThingRenamed(name="n", reason="because")


async def test_duplicate_event_id_is_refused(pool: asyncpg.Pool) -> None:
    store = EventStore(pool)
    eid = uuid.uuid4()
    await store.append([StreamAppend("thing-a", [ThingHappened(n=1)], event_ids=[eid])])
    with pytest.raises(Exception) as err:
        await store.append([StreamAppend("thing-b", [ThingHappened(n=1)], event_ids=[eid])])
    assert getattr(err.value, "code", None) == "duplicate_event_id"
    assert await count(pool) == 1


async def test_a_tail_with_payload_types_carries_only_their_bytes(pool: asyncpg.Pool) -> None:
    """``payload_types``: rows of those types come whole, the others as headers only (the
    notifier's tail), and the page still ends at the last row read, so a checkpoint moves."""
    store = EventStore(pool)
    meta = Metadata(actor="tenant:t1", correlation_id="c-1")
    await store.append(
        [
            StreamAppend(
                "thing-p",
                [ThingHappened(n=1), ThingRenamed(name="n", reason="r"), ThingHappened(n=2)],
                NO_STREAM,
                meta,
            )
        ]
    )
    full = await store.read_after(Position(), categories=["thing"])
    part = await store.read_after(
        Position(), categories=["thing"], payload_types=["test.thing_renamed"]
    )
    assert [e.position for e in part] == [e.position for e in full]
    assert [(e.type, e.stream_version, e.recorded_at) for e in part] == [
        (e.type, e.stream_version, e.recorded_at) for e in full
    ]
    whole = [e for e in part if e.type == "test.thing_renamed"]
    assert whole == [e for e in full if e.type == "test.thing_renamed"]
    assert whole[0].decode() == ThingRenamed(name="n", reason="r") and whole[0].meta() == meta
    for headers in (e for e in part if e.type != "test.thing_renamed"):
        assert (headers.data, headers.metadata, headers.hash, headers.prev_hash) == (
            b"",
            b"",
            b"",
            None,
        )
        with pytest.raises(MalformedEvent):  # a header is never mistaken for an event
            headers.decode()
