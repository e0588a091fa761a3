"""Reading across the archive: ``hookproof gates`` (whole log and ``--since``) gives the same
answer before and after archiving, and a projection rebuild from the hot log matches the live
projections (archived streams leave their rows behind only as tombstones)."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from hookproof.engine.recording.registry import async_projections
from hookproof.engine.runtime.composition import construct_archiver
from hookproof.engine.runtime.daemon import Engine
from hookproof.projections import Projector

from ..daemon import run_cli
from ..delivery.conftest import Subscriber
from ..support import log_settled
from .helpers import mixed_workload, now


def _env(db_url: str, folder: Path) -> dict[str, str]:
    return {"HOOKPROOF_DATABASE_URL": db_url, "HOOKPROOF_DATA_DIR": str(folder)}


def _gates(db_url: str, folder: Path, *extra: str) -> list[dict[str, object]]:
    out = run_cli(["gates", "--json", *extra], _env(db_url, folder))
    assert out.returncode in (0, 1), out.stderr[-2000:]
    return json.loads(out.stdout)["gates"]


async def test_gates_and_rebuild_work_across_the_archive(
    engine: Engine, tenant: str, subscriber: Subscriber, db_url: str, tmp_path: Path
) -> None:
    start = await now(engine.pool)
    await mixed_workload(engine, tenant, subscriber)
    since = (start - timedelta(seconds=1)).isoformat()
    whole = _gates(db_url, tmp_path)
    recent = _gates(db_url, tmp_path, "--since", since)
    checked = {g["gate"]: g["detail"].get("checked") for g in whole}
    assert checked["dead_letters_without_owner"] == 3
    assert checked["revoked_key_acceptances"] == 6

    projector = Projector(engine.store, async_projections())
    await log_settled(engine.pool)  # the tails read below the server's oldest transaction
    await projector.run_once()
    catalogued = await engine.pool.fetchval("SELECT count(*) FROM proj_stream_catalogue")
    result = await construct_archiver(engine.pool, engine.settings).run(await now(engine.pool))
    assert result.events > 0
    await log_settled(engine.pool)
    await projector.run_once()
    assert await engine.pool.fetchval("SELECT count(*) FROM proj_stream_catalogue") == (
        catalogued - result.streams + 1  # the archive's anchor stream is catalogued too
    )
    dead_hot = await engine.pool.fetchval(
        "SELECT count(*) FROM events WHERE type = 'delivery.dead_lettered'"
    )
    assert dead_hot == 0  # every dead letter is archived now

    assert _gates(db_url, tmp_path) == whole
    assert _gates(db_url, tmp_path, "--since", since) == recent

    rebuild = run_cli(["projections", "rebuild", "--verify", "--json"], _env(db_url, tmp_path))
    assert rebuild.returncode == 0, rebuild.stdout + rebuild.stderr
