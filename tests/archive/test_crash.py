"""Kill the archive run (a real process, SIGKILL) after the file, after the anchor and in the
middle of the removal: the next run completes it; nothing is lost or duplicated; and at every
moment each closed stream is hot, or anchored with its file: never neither."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import asyncpg
import pytest

from hookproof.engine.runtime.daemon import Engine

from ..daemon import run_cli
from ..delivery.conftest import Subscriber
from .helpers import archived_rows, hot_rows, mixed_workload, now


def _env(db_url: str, folder: Path, **extra: str) -> dict[str, str]:
    return {
        "HOOKPROOF_DATABASE_URL": db_url,
        "HOOKPROOF_DATA_DIR": str(folder),
        "HOOKPROOF_RECEIPT_WINDOW": "0",
        "HOOKPROOF_REPLAY_WINDOW": "0",
        "HOOKPROOF_ARCHIVE_BATCH": "3",
        "HOOKPROOF_ARCHIVE_PAUSE": "0",
        **extra,
    }


async def _segments(pool: asyncpg.Pool) -> list[asyncpg.Record]:
    return await pool.fetch("SELECT * FROM archive_segments ORDER BY anchored_at")


@pytest.mark.parametrize("point", ["after_file", "after_anchor", "mid_delete"])
async def test_killed_run_is_completed_by_the_next(
    engine: Engine,
    tenant: str,
    subscriber: Subscriber,
    db_url: str,
    tmp_path: Path,
    point: str,
) -> None:
    await mixed_workload(engine, tenant, subscriber)
    cutoff = (await now(engine.pool)).isoformat()
    folder = engine.settings.archive_dir
    before = await hot_rows(engine.pool)
    assert len(before) > 20

    crashed = run_cli(
        ["archive", "run", "--before", cutoff, "--json"],
        _env(db_url, tmp_path, HOOKPROOF_ARCHIVE_CRASH_AT=point),
    )
    assert crashed.returncode == -signal.SIGKILL, crashed.stderr[-2000:]

    segs = await _segments(engine.pool)
    files = sorted(p.name for p in folder.iterdir()) if folder.exists() else []
    hot = await hot_rows(engine.pool)
    if point == "after_file":
        assert segs == [] and hot == before  # nothing anchored, every row in place
        assert any(f.endswith(".jsonl.gz") for f in files)
    else:
        [seg] = segs
        assert seg["file_name"] in files and seg["completed_at"] is None
        in_file = archived_rows(folder, [seg["file_name"]])
        # never neither: every row is hot, or in the anchored file (or both)
        assert before <= hot | set(in_file)
        if point == "after_anchor":
            assert hot == before
        else:
            assert hot < before  # the first removal batch committed, the rest did not

    done = run_cli(["archive", "run", "--before", cutoff, "--json"], _env(db_url, tmp_path))
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    if point == "after_file":
        assert report["orphansRemoved"] and not report["resumed"]
    else:
        assert report["resumed"] == [segs[0]["segment_id"]]

    segs = await _segments(engine.pool)
    assert segs and all(s["completed_at"] is not None for s in segs)
    in_files = archived_rows(folder, [s["file_name"] for s in segs])
    hot = await hot_rows(engine.pool)
    assert len(in_files) == len(set(in_files)), "an event archived twice"
    assert not hot & set(in_files), "an event both hot and archived"
    assert hot | set(in_files) == before, "an event lost"
    # what is on disk is exactly the anchored segments and their manifests
    names = {s["file_name"] for s in segs}
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [*names, *(n + ".manifest.json" for n in names)]
    )
    verify = run_cli(["audit", "verify", "--json"], _env(db_url, tmp_path))
    assert verify.returncode == 0, verify.stdout[-2000:] + verify.stderr[-2000:]
