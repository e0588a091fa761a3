"""Large appends (COPY into a session staging table, then one insert): the same rows, order,
hash chains, conflicts and archived-stream refusals as the array path of small appends."""

from __future__ import annotations

import asyncpg
import pytest

from hookproof.errors import ConcurrencyConflict, StreamArchived
from hookproof.events import ANY, NO_STREAM, EventStore, Metadata, StreamAppend, verify_chain

from .sample_events import ThingHappened

MANY = 300  # above the staging threshold (256)


def batch(prefix: str, n: int = MANY) -> list[StreamAppend]:
    meta = Metadata(actor="test")
    return [
        StreamAppend(f"thing-{prefix}{i}", [ThingHappened(n=i)], NO_STREAM, meta) for i in range(n)
    ] + [StreamAppend(f"thing-{prefix}long", [ThingHappened(n=k) for k in range(5)], ANY, meta)]


async def test_a_large_append_is_recorded_as_a_small_one_would_be(pool: asyncpg.Pool) -> None:
    store = EventStore(pool)
    rec = await store.append(batch("a"))
    assert len(rec) == MANY + 5
    assert [r.stream_id for r in rec[:3]] == ["thing-a0", "thing-a1", "thing-a2"]
    positions = [r.global_position for r in rec]
    assert positions == sorted(positions) and len({r.tx_id for r in rec}) == 1
    rows = await pool.fetch(
        "SELECT global_position, stream_id, stream_version, hash FROM events ORDER BY 1"
    )
    assert [(r["global_position"], r["stream_id"], bytes(r["hash"])) for r in rows] == [
        (r.global_position, r.stream_id, r.hash) for r in rec
    ]
    long = await store.read_stream("thing-along")
    assert [e.decode() for e in long] == [ThingHappened(n=k) for k in range(5)]
    assert verify_chain(long) is None
    broken = await pool.fetch("SELECT * FROM hookproof_verify_stream('thing-along')")
    assert broken == []
    assert rec[0].decode() == ThingHappened(n=0)
    # the next large append (same or another session) starts from an empty stage
    again = await store.append(batch("b"))
    assert len(again) == MANY + 5
    assert await pool.fetchval("SELECT count(*) FROM events") == 2 * (MANY + 5)


async def test_a_conflict_in_a_large_append_writes_nothing(pool: asyncpg.Pool) -> None:
    store = EventStore(pool)
    await store.append([StreamAppend("thing-c7", [ThingHappened(n=0)], NO_STREAM)])
    async with pool.acquire() as conn:
        with pytest.raises(ConcurrencyConflict) as err:
            await store.append(batch("c"), conn=conn)
        assert err.value.stream_id == "thing-c7"
        assert await conn.fetchval("SELECT count(*) FROM events") == 1
        # the same session appends a large batch right after: nothing left over in its stage
        rec = await store.append(batch("d"), conn=conn)
    assert len(rec) == MANY + 5
    assert await pool.fetchval("SELECT count(*) FROM events") == 1 + MANY + 5


async def test_an_archived_stream_refuses_a_large_append_whole(pool: asyncpg.Pool) -> None:
    store = EventStore(pool)
    await pool.execute(
        """
        INSERT INTO archive_segments (segment_id, file_name, file_sha256, file_size,
            manifest_digest, key_id, streams, events, first_recorded_at, last_recorded_at,
            cutoff, anchor_position)
        VALUES ('seg-1', 'seg-1.jsonl.gz', 'x', 1, 'x', 'k', 1, 1, now(), now(), now(), 1);
        INSERT INTO archived_streams (stream_id, segment_id, category, final_version,
            final_hash, events, member_offset, member_length, last_recorded_at)
        VALUES ('thing-e3', 'seg-1', 'thing', 1, '\\x00', 1, 0, 1, now());
        """
    )
    with pytest.raises(StreamArchived):
        await store.append(batch("e"))
    assert await pool.fetchval("SELECT count(*) FROM events") == 0
