"""The stream catalogue is an UNLOGGED table (it writes no WAL): a crash empties it, and the
projector notices (its mark vanished with the rows), folds the log again from the start and
ends with the same rows; a verify in between reports a lag, never a difference. The crash is
real: the test's own Postgres stopped with ``pg_ctl -m immediate`` and started again."""

from __future__ import annotations

import asyncpg
from structlog.testing import capture_logs

from hookproof.engine.db.database import connect_pool
from hookproof.engine.db.migrate import migrate
from hookproof.events import ANY, EventStore, StreamAppend
from hookproof.projections import Projector, StreamCatalogue, read_checkpoint, rebuild, table_rows

from ..delivery.test_db_restart import OwnPostgres, own_pg  # noqa: F401
from ..events.sample_events import ThingHappened
from ..support import log_settled

PERSISTENCE = "SELECT relpersistence::text FROM pg_class WHERE relname = $1"


async def _append(store: EventStore, streams: int, per_stream: int) -> None:
    await store.append(
        [
            StreamAppend(f"thing-{i}", [ThingHappened(n=j) for j in range(per_stream)], ANY)
            for i in range(streams)
        ]
    )


async def test_the_catalogue_and_its_mark_are_unlogged_also_after_a_rebuild(
    pool: asyncpg.Pool,
) -> None:
    store = EventStore(pool)
    projection = StreamCatalogue()
    await _append(store, 5, 2)
    await log_settled(pool)
    assert await pool.fetchval(PERSISTENCE, "proj_stream_catalogue") == "u"
    assert await pool.fetchval(PERSISTENCE, "projection_unlogged_marks") == "u"
    result = await rebuild(store, projection)  # blue/green swap: the fresh table replaces it
    assert result.rows == 5
    assert await pool.fetchval(PERSISTENCE, "proj_stream_catalogue") == "u"
    assert await pool.fetchval(
        "SELECT count(*) FROM projection_unlogged_marks WHERE name = 'stream_catalogue'"
    ) == 1
    assert (await rebuild(store, projection, verify=True)).differences == []


async def test_a_crash_empties_the_catalogue_and_the_projector_folds_the_log_again(
    own_pg: OwnPostgres,  # noqa: F811
) -> None:
    conn = await asyncpg.connect(own_pg.url)
    try:
        await migrate(conn)
    finally:
        await conn.close()
    projection = StreamCatalogue()
    pool = await connect_pool(own_pg.url, min_size=1, max_size=4)
    try:
        store = EventStore(pool)
        await _append(store, 40, 3)
        await log_settled(pool)
        assert await Projector(store, [projection]).run_once() == 120
        async with pool.acquire() as c:
            before = await table_rows(c, projection, projection.table)
            checkpoint = await read_checkpoint(c, projection.name)
        assert len(before) == 40 and checkpoint.global_position > 0
    finally:
        await pool.close()

    await own_pg.crash()
    await own_pg.start()

    pool = await connect_pool(own_pg.url, min_size=1, max_size=4)
    try:
        store = EventStore(pool)
        async with pool.acquire() as c:  # the rows are gone, the logged checkpoint is not
            assert await table_rows(c, projection, projection.table) == {}
            assert await read_checkpoint(c, projection.name) == checkpoint
        early = await rebuild(store, projection, verify=True)
        assert early.differences == []  # an emptied table is a lag, never a false alarm
        assert early.lag is not None and early.lag.events == 120
        with capture_logs() as logs:
            assert await Projector(store, [projection]).run_once() == 120
        assert [e for e in logs if e["event"] == "projection_unlogged_reset"] == [
            {
                "event": "projection_unlogged_reset",
                "log_level": "warning",
                "projection": "stream_catalogue",
                "checkpoint": checkpoint.global_position,
            }
        ]
        async with pool.acquire() as c:
            assert await table_rows(c, projection, projection.table) == before
            assert await read_checkpoint(c, projection.name) == checkpoint
        late = await rebuild(store, projection, verify=True)
        assert late.differences == [] and late.lag is not None and late.lag.events == 0
        # marked again: the next pass applies nothing and resets nothing
        with capture_logs() as logs:
            assert await Projector(store, [projection]).run_once() == 0
        assert not [e for e in logs if e["event"] == "projection_unlogged_reset"]
    finally:
        await pool.close()
