"""Shared test pieces: engine settings for a loopback HTTPS peer, and a running engine."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import asyncpg
import trustme

from hookproof.config import Settings
from hookproof.engine.runtime.composition import EngineOptions
from hookproof.engine.runtime.daemon import Engine, build_engine


def loopback_settings(
    port: int, ca: trustme.CA, folder: Path, *, request_timeout_s: float
) -> Settings:
    """Egress allowed to exactly 127.0.0.1:port, trusting the test CA; DNS never answers."""
    ca_file = folder / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    return Settings(
        data_dir=folder,
        egress_allow=(("127.0.0.1", port),),
        egress_ca_file=str(ca_file),
        dns_servers=(("127.0.0.1", 9),),
        connect_timeout_s=1.0,
        request_timeout_s=request_timeout_s,
    )


@asynccontextmanager
async def running_engine(
    pool: asyncpg.Pool, settings: Settings, options: EngineOptions | None = None
) -> AsyncIterator[Engine]:
    """An engine whose in-flight sends are drained and whose resources are closed after use."""
    e = await build_engine(settings, pool, options)
    try:
        yield e
    finally:
        await e.services.dispatcher.drain()
        await e.close()


async def log_settled(pool: asyncpg.Pool, timeout_s: float = 30.0) -> None:
    """Wait until every committed event is below the tailing readers' fence.

    The projector and the notifier read only ``tx_id < pg_snapshot_xmin(...)``, and that
    horizon is the whole server's: on a shared Postgres another database's open transaction
    holds it back for a moment. A test that runs a tailing reader once and then compares
    calls this first, so it compares a caught-up reader, not a moment of the server's load.
    """
    import time

    deadline = time.monotonic() + timeout_s
    while True:
        behind = await pool.fetchval(
            "SELECT EXISTS (SELECT 1 FROM events"
            " WHERE tx_id >= pg_snapshot_xmin(pg_current_snapshot()))"
        )
        if not behind or time.monotonic() > deadline:
            return
        await asyncio.sleep(0.02)


_LOCK_WAITS = """
SELECT count(*) FROM pg_stat_activity
WHERE datname = current_database() AND wait_event_type = 'Lock'
"""


async def until_a_writer_waits(pool: asyncpg.Pool) -> None:
    """Return once some session of this database waits for a lock (a lock-order test's
    cue that the racing writer is blocked)."""
    for _ in range(3000):  # polls the server's view of lock waits, not a timer
        if await pool.fetchval(_LOCK_WAITS):
            return
        await asyncio.sleep(0.01)
    raise AssertionError("no writer ever waited for a lock")
