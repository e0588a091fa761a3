"""The stream catalogue is kept in batches (engine/recording/projections_runner.py), not per commit: the
archive finds exactly the closed streams it found when the catalogue was kept current.

One log, built through the real engine with the catalogue projected once half-way (a daemon
whose last batch ran a while ago), copied into two databases: in the first the catalogue is
brought up to the log before the archive runs (what the per-commit projector used to
guarantee); in the second it is left behind, and the run catches it up itself. The same run
over each must write the same segments: the same streams in the same groups, with the same
final versions, hashes and counts, and leave the same catalogue behind.
"""

from __future__ import annotations

import dataclasses
import urllib.parse
from datetime import datetime
from pathlib import Path
from typing import Any

import asyncpg

from hookproof.config import Settings
from hookproof.engine.db.database import connect_pool
from hookproof.engine.recording.registry import async_projections
from hookproof.engine.runtime.composition import construct_archiver
from hookproof.events import EventStore
from hookproof.projections import Projector

from ..conftest import create_database
from ..delivery.conftest import Subscriber
from ..support import log_settled, running_engine
from .helpers import mixed_workload, now


async def _segments(pool: asyncpg.Pool) -> list[list[tuple[Any, ...]]]:
    """Every segment's streams (id, category, final version and hash, events), segments in
    the order their anchors were written."""
    rows = await pool.fetch(
        "SELECT s.anchor_position, a.stream_id, a.category, a.final_version, a.final_hash,"
        " a.events FROM archived_streams a JOIN archive_segments s USING (segment_id)"
        " ORDER BY s.anchor_position, a.stream_id"
    )
    out: dict[int, list[tuple[Any, ...]]] = {}
    for r in rows:
        out.setdefault(r["anchor_position"], []).append(
            (r["stream_id"], r["category"], r["final_version"], bytes(r["final_hash"]), r["events"])
        )
    return [out[k] for k in sorted(out)]


async def _archive(
    url: str, settings: Settings, folder: Path, cutoff: datetime, *, project_first: bool
) -> dict[str, Any]:
    pool = await connect_pool(url, min_size=1, max_size=4)
    try:
        behind = await pool.fetchval(
            "SELECT count(*) FROM events e WHERE NOT EXISTS"
            " (SELECT 1 FROM proj_stream_catalogue c WHERE c.stream_id = e.stream_id)"
        )
        assert behind > 0  # the half-way batch left the second half out
        if project_first:
            await Projector(EventStore(pool), async_projections()).run_once()
        here = dataclasses.replace(settings, archive_dir_override=folder)
        result = await construct_archiver(pool, here, clock=lambda: cutoff).run(cutoff)
        catalogue = await pool.fetch(
            "SELECT stream_id, category, version, event_count, last_position"
            " FROM proj_stream_catalogue WHERE category <> 'archive' ORDER BY stream_id"
        )
        return {
            "streams": result.streams,
            "events": result.events,
            "skipped": result.skipped,
            "segments": await _segments(pool),
            "hot": await pool.fetchval("SELECT count(*) FROM events"),
            "catalogue": [tuple(r) for r in catalogue],
        }
    finally:
        await pool.close()


async def test_archive_finds_the_same_closed_streams_from_a_lagging_catalogue(
    pg_server_url: str,
    template_db: str,
    settings: Settings,
    subscriber: Subscriber,
    tmp_path: Path,
) -> None:
    source = await create_database(pg_server_url, template_db)
    pool = await connect_pool(source, min_size=1, max_size=8)
    # no projector role: its graceful-stop settle would catch the catalogue up at close
    no_projector = dataclasses.replace(
        settings, env={**settings.env, "HOOKPROOF_ROLES": "api,dispatcher,scheduler"}
    )
    try:
        async with running_engine(pool, no_projector) as engine:
            tenant = (await engine.tenants.create("acme")).tenant_id
            await mixed_workload(engine, tenant, subscriber, n=4)
            await log_settled(pool)
            await Projector(EventStore(pool), async_projections()).run_once()  # one batch
            tenant_b = (await engine.tenants.create("beta")).tenant_id
            await mixed_workload(engine, tenant_b, subscriber, n=4)
        await log_settled(pool)
        cutoff = await now(pool)
    finally:
        await pool.close()
    name = urllib.parse.urlsplit(source).path.lstrip("/")
    copy = await create_database(pg_server_url, name)

    current = await _archive(source, settings, tmp_path / "a", cutoff, project_first=True)
    lagging = await _archive(copy, settings, tmp_path / "b", cutoff, project_first=False)

    # the workloads' closed streams left in both (2 x (4 accepted, 2 dead-lettered): their
    # event and delivery streams), the ones still retrying stayed
    assert current["streams"] == 2 * 2 * (4 + 2)
    assert lagging == current
    # and the catalogue of what stayed hot equals a rebuild from the hot log alone
    assert current["catalogue"], "the hot subscription and key streams are catalogued"

    admin = await asyncpg.connect(pg_server_url)
    try:
        for url in (source, copy):
            db = urllib.parse.urlsplit(url).path.lstrip("/")
            await admin.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
    finally:
        await admin.close()
