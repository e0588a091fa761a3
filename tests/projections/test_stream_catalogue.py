"""Projector and rebuild: the incremental path and a rebuild from zero give the same table."""

from __future__ import annotations

import asyncpg
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookproof.events import ANY, EventStore, StreamAppend
from hookproof.events.store import category_of
from hookproof.projections import Projector, StreamCatalogue, read_checkpoint, rebuild, table_rows

from ..events.sample_events import ThingHappened
from ..support import log_settled

batches = st.lists(
    st.lists(
        st.tuples(
            # "event-type-...": the catalogue's one category that is not the id's first part
            st.sampled_from(["a-1", "a-2", "b-1", "c-9", "c-10", "event-type-t1-x"]),
            st.integers(1, 3),
        ),
        min_size=1,
        max_size=4,
        unique_by=lambda t: t[0],
    ),
    min_size=1,
    max_size=12,
)


async def _write(store: EventStore, batch: list[tuple[str, int]]) -> None:
    await store.append(
        [StreamAppend(s, [ThingHappened(n=i) for i in range(n)], ANY) for s, n in batch]
    )


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(workload=batches, project_every=st.integers(1, 4))
async def test_incremental_equals_rebuild(pool: asyncpg.Pool, workload, project_every) -> None:  # type: ignore[no-untyped-def]
    async with pool.acquire() as conn:  # hypothesis reuses the database: start from empty
        await conn.execute("DELETE FROM proj_stream_catalogue")
        await conn.execute("DELETE FROM projection_checkpoints")
    store = EventStore(pool)
    projection = StreamCatalogue()
    projector = Projector(store, [projection], batch=3)
    for i, batch in enumerate(workload):
        await _write(store, batch)
        if i % project_every == 0:
            await projector.run_once()
    await log_settled(pool)
    await projector.run_once()
    async with pool.acquire() as conn:
        incremental = await table_rows(conn, projection, projection.table)
        live_checkpoint = await read_checkpoint(conn, projection.name)
    expected_streams = await pool.fetch(
        "SELECT stream_id, max(stream_version) v, count(*) c FROM events GROUP BY stream_id"
    )
    assert {r["stream_id"]: (r["v"], r["c"]) for r in expected_streams} == {
        k: (row["version"], row["event_count"]) for k, row in incremental.items()
    }
    assert {k: row["category"] for k, row in incremental.items()} == {
        k: category_of(k) for k in incremental
    }
    check = await rebuild(store, projection, verify=True, page_size=4)
    assert check.differences == []
    result = await rebuild(store, projection, page_size=4)
    async with pool.acquire() as conn:
        rebuilt = await table_rows(conn, projection, projection.table)
        assert await read_checkpoint(conn, projection.name) == live_checkpoint == result.position
    assert rebuilt == incremental


async def test_verify_reports_an_injected_difference(pool: asyncpg.Pool) -> None:
    store = EventStore(pool)
    projection = StreamCatalogue()
    await _write(store, [("a-1", 2), ("b-1", 1)])
    await log_settled(pool)
    await Projector(store, [projection]).run_once()
    await pool.execute("UPDATE proj_stream_catalogue SET version = 99 WHERE stream_id = 'a-1'")
    result = await rebuild(store, projection, verify=True)
    assert result.differences == ["stream_id=a-1 version: live=99 rebuilt=2"]
    # a real rebuild repairs it
    await rebuild(store, projection)
    assert (
        await pool.fetchval("SELECT version FROM proj_stream_catalogue WHERE stream_id = 'a-1'")
        == 2
    )


class _FoldedHere(StreamCatalogue):
    """The catalogue, refusing to fold anything in this process."""

    async def apply_incremental(self, conn, events, table):  # type: ignore[no-untyped-def]
        raise AssertionError(f"a page of {len(events)} events was folded in the engine process")

    def evolve(self, row, event):  # type: ignore[no-untyped-def]
        raise AssertionError("evolve ran in the engine process")


async def test_a_pass_folds_nothing_in_the_engine_process(pool: asyncpg.Pool) -> None:
    """Issue 40: the daemon's projector runs on the event loop that answers the API; a page
    decoded and folded there held it for hundreds of milliseconds. The server does the page
    (``stream_catalogue.advance.sql``): the pass below, in pages of 7 events, never calls the
    Python fold, and leaves the same table a rebuild (which does fold in Python) makes."""
    store = EventStore(pool)
    await _write(store, [("a-1", 3), ("b-1", 2), ("event-type-t1-x", 1)])
    await _write(store, [("a-1", 2), ("c-9", 3), ("c-10", 3)])
    await _write(store, [("b-1", 1), ("a-2", 3)])
    await log_settled(pool)
    applied = await Projector(store, [_FoldedHere()], batch=7).run_once()
    assert applied == await pool.fetchval("SELECT count(*) FROM events")
    check = await rebuild(store, StreamCatalogue(), verify=True, page_size=5)
    assert check.differences == [] and check.lag is not None and check.lag.events == 0
