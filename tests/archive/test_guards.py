"""The only way rows leave the log: a direct DELETE is refused; the archive function refuses
rows no anchored manifest covers; a changed or missing segment fails ``audit verify`` by name."""

from __future__ import annotations

import json
from pathlib import Path

import asyncpg
import pytest

from hookproof.engine.runtime.composition import construct_archiver
from hookproof.engine.runtime.daemon import Engine

from ..daemon import run_cli
from ..delivery.conftest import Subscriber
from .helpers import mixed_workload, now


async def test_delete_is_refused_and_the_function_refuses_uncovered_rows(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    await mixed_workload(engine, tenant, subscriber, n=2)
    pool = engine.pool
    total = await pool.fetchval("SELECT count(*) FROM events")
    with pytest.raises(asyncpg.InsufficientPrivilegeError, match="append-only"):
        await pool.execute("DELETE FROM events WHERE category = 'delivery'")
    with pytest.raises(asyncpg.InsufficientPrivilegeError, match="append-only"):
        await pool.execute("TRUNCATE events")
    # no such segment: refused
    with pytest.raises(asyncpg.InsufficientPrivilegeError, match="no anchored manifest"):
        await pool.fetchval("SELECT hookproof_archive_remove('seg-forged', ARRAY['event-evt-a0'])")

    result = await construct_archiver(engine.pool, engine.settings).run(await now(pool))
    [segment] = result.segments
    archived = {r["stream_id"] for r in await pool.fetch("SELECT stream_id FROM archived_streams")}
    hot = [r["stream_id"] for r in await pool.fetch("SELECT DISTINCT stream_id FROM events")]
    open_stream = next(s for s in hot if s.startswith("delivery-"))
    assert open_stream not in archived
    kept = await pool.fetchval("SELECT count(*) FROM events")
    assert kept < total
    # an anchored segment, but a stream its manifest does not cover: refused
    with pytest.raises(asyncpg.InsufficientPrivilegeError, match="not covered"):
        await pool.fetchval("SELECT hookproof_archive_remove($1, $2)", segment, [open_stream])
    # the grant the function sets cannot be forged to delete an uncovered row either
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute(
            "SELECT set_config('hookproof.archive_remove', $1 || '/' || pg_current_xact_id(),"
            " true)",
            segment,
        )
        with pytest.raises(asyncpg.InsufficientPrivilegeError, match="append-only"):
            await conn.execute("DELETE FROM events WHERE stream_id = $1", open_stream)
    # tombstones are evidence too: never deleted
    with pytest.raises(asyncpg.InsufficientPrivilegeError):
        await pool.execute("DELETE FROM archived_streams")
    assert await pool.fetchval("SELECT count(*) FROM events") == kept


def _env(db_url: str, folder: Path) -> dict[str, str]:
    return {"HOOKPROOF_DATABASE_URL": db_url, "HOOKPROOF_DATA_DIR": str(folder)}


@pytest.mark.parametrize("damage", ["one_byte", "removed", "manifest_byte"])
async def test_audit_verify_names_a_changed_or_missing_segment(
    engine: Engine, tenant: str, subscriber: Subscriber, db_url: str, tmp_path: Path, damage: str
) -> None:
    await mixed_workload(engine, tenant, subscriber, n=2)
    result = await construct_archiver(engine.pool, engine.settings).run(await now(engine.pool))
    [segment] = result.segments
    ok = run_cli(["audit", "verify", "--json"], _env(db_url, tmp_path))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert json.loads(ok.stdout)["archive"]["segments"] == 1

    [path] = list(engine.settings.archive_dir.glob("*.jsonl.gz"))
    if damage == "one_byte":
        raw = bytearray(path.read_bytes())
        raw[len(raw) // 2] ^= 0x01
        path.write_bytes(bytes(raw))
        expected = "segment_changed"
    elif damage == "removed":
        path.unlink()
        expected = "segment_missing"
    else:
        mpath = path.with_name(path.name + ".manifest.json")
        doc = json.loads(mpath.read_text())
        doc["manifest"]["streams"][0]["events"] += 1
        mpath.write_text(json.dumps(doc))
        expected = "manifest_mismatch"

    bad = run_cli(["audit", "verify", "--json"], _env(db_url, tmp_path))
    assert bad.returncode == 1, bad.stdout + bad.stderr
    problems = json.loads(bad.stdout)["archive"]["problems"]
    assert {p["problem"] for p in problems} >= {expected}
    assert all(p["segmentId"] == segment and p["file"] == str(path) for p in problems)
    text = run_cli(["audit", "verify"], _env(db_url, tmp_path))
    assert text.returncode == 1 and f"BROKEN segment {segment} ({path})" in text.stdout


async def test_an_append_racing_the_anchor_is_refused_not_lost(pool: asyncpg.Pool) -> None:
    """The append reads the stream's head before the anchor commits and inserts after it: the
    insert waits for the anchor's lock and then sees the tombstone, so the whole batch is
    refused; the stream's archived head stays its last version."""
    import asyncio
    import uuid

    from hookproof.errors import StreamArchived
    from hookproof.events import NO_STREAM, EventStore, StreamAppend
    from hookproof.events.sqlfiles import query

    from ..events.sample_events import ThingHappened

    store = EventStore(pool)
    [head] = await store.append([StreamAppend("thing-a", [ThingHappened(n=1)], NO_STREAM)])
    args = [
        "seg-race", "seg-race.jsonl.gz", "00" * 32, 1, "11" * 32, "k_test",
        head.recorded_at, head.recorded_at, head.recorded_at,
        uuid.uuid4(), b"{}", b"{}",
        ["thing-a"], ["thing"], [1], [head.hash], [1], [0], [1], [head.recorded_at],
    ]  # fmt: skip
    async with pool.acquire() as anchor_conn:
        tx = anchor_conn.transaction()
        await tx.start()
        assert await anchor_conn.fetchval(query("archive_anchor", "hookproof.engine"), *args)
        # the append reads the head now (the tombstone is not committed yet) ...
        racing = asyncio.create_task(
            store.append([StreamAppend("thing-a", [ThingHappened(n=2)], 1)])
        )
        done, _ = await asyncio.wait({racing}, timeout=0.5)
        assert not done, "the insert must wait for the anchor's lock"
        await tx.commit()
    with pytest.raises(StreamArchived):
        await racing
    rows = await pool.fetch("SELECT stream_version FROM events WHERE stream_id = 'thing-a'")
    assert [r["stream_version"] for r in rows] == [1]
