"""``audit verify``: every chain in one pass, the first broken link per stream, the guards."""

from __future__ import annotations

import asyncio
import json

import asyncpg

from hookproof.engine.audit import verify_log
from hookproof.engine.db.database import connect_pool
from hookproof.events import EventStore
from tests.daemon import run_cli

from . import history as h


async def _history(store: EventStore) -> None:
    for i in range(7):
        did = f"d{i}"
        await h.put(store, f"delivery-{did}", h.planned(did), h.admitted(did, 1))
        await h.put(store, f"delivery-{did}", h.accepted(did, 1))
    await h.put(store, "subscription-s1", h.registered("s1"), h.issued("s1", "c1"))


async def _tamper(conn: asyncpg.Connection, stream: str, version: int, keep_off: bool) -> None:
    await conn.execute("ALTER TABLE events DISABLE TRIGGER events_refuse_update_delete")
    await conn.execute(
        "UPDATE events SET data = overlay(data PLACING '\\x20'::bytea FROM 3 FOR 1) "
        "WHERE stream_id = $1 AND stream_version = $2",
        stream,
        version,
    )
    if not keep_off:
        await conn.execute("ALTER TABLE events ENABLE TRIGGER events_refuse_update_delete")


async def test_pages_cross_streams(pool: asyncpg.Pool) -> None:
    store = EventStore(pool)
    await _history(store)
    async with pool.acquire() as conn:
        seen: list[int] = []
        report = await verify_log(conn, page_size=4, progress=seen.append)
        assert report.ok and report.events == 23 and report.streams == 8
        assert seen[-1] == 23
        await _tamper(conn, "delivery-d3", 2, keep_off=False)
        await _tamper(conn, "delivery-d5", 1, keep_off=False)
        report = await verify_log(conn, page_size=4)
    assert not report.ok and report.guards_missing == []
    assert [(b.stream_id, b.stream_version, b.problem) for b in report.broken] == [
        ("delivery-d3", 2, "hash_mismatch"),
        ("delivery-d5", 1, "hash_mismatch"),
    ]


def test_cli_finds_tampered_event(db_url_sync: str) -> None:
    async def script(tamper: bool, keep_off: bool = False) -> None:
        pool = await connect_pool(db_url_sync, min_size=1, max_size=2)
        try:
            if tamper:
                async with pool.acquire() as conn:
                    await _tamper(conn, "delivery-d4", 2, keep_off)
            else:
                await _history(EventStore(pool))
        finally:
            await pool.close()

    env = {"HOOKPROOF_DATABASE_URL": db_url_sync}
    asyncio.run(script(False))
    r = run_cli(["audit", "verify"], env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "checked 23 event(s) in 8 stream(s)" in r.stdout and r.stdout.strip().endswith("ok")

    asyncio.run(script(True))
    r = run_cli(["audit", "verify"], env)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "BROKEN delivery-d4 at version 2: hash_mismatch" in r.stdout
    assert "FAILED" in r.stdout

    # Leaving the guard disabled is itself a broken guarantee.
    asyncio.run(script(True, keep_off=True))
    r = run_cli(["audit", "verify", "--json"], env)
    assert r.returncode == 1
    out = json.loads(r.stdout)
    assert out["appendOnlyGuardsMissing"] == ["events_refuse_update_delete"]
    assert out["broken"] == [
        {"streamId": "delivery-d4", "streamVersion": 2, "problem": "hash_mismatch"}
    ]
