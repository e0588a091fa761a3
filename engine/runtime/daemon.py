"""``hookproof serve``: the API and the workers in one process; graceful shutdown on SIGTERM.

The engine is built by the composition root (:func:`~.composition.build_engine`, re-exported
here with :class:`~.composition.Engine`).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import signal
from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg
import structlog
from aiohttp import web

from hookproof.config import Settings

from ..observe.memory import GC_GEN0_THRESHOLD, collector_after_start_up
from .composition import Engine, EngineOptions, build_engine

__all__ = ["Engine", "EngineOptions", "build_engine", "serve", "supervised"]

log = structlog.get_logger("hookproof.daemon")


#: a crashed worker is started again after this long, doubling up to ``WORKER_BACKOFF_MAX_S``
WORKER_BACKOFF_S = 0.5
WORKER_BACKOFF_MAX_S = 30.0


async def supervised(
    name: str, worker: Callable[[asyncio.Event], Awaitable[Any]], stop: asyncio.Event
) -> None:
    """Run ``worker`` until ``stop``; when it raises (e.g. its listener connection died in a
    Postgres restart) log it and start it again, backing off: no worker stays crashed."""
    delay = WORKER_BACKOFF_S
    while not stop.is_set():
        try:
            await worker(stop)
            return
        except Exception as exc:
            log.error("worker_crashed", worker=name, error=type(exc).__name__, restart_in_s=delay)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), delay)
        delay = min(delay * 2, WORKER_BACKOFF_MAX_S)


async def serve(
    settings: Settings,
    pool: asyncpg.Pool,
    *,
    ready: Callable[[str], None] | None = None,
    reuse_port: bool = False,
) -> None:
    engine = await build_engine(settings, pool)
    runner = web.AppRunner(engine.app(), access_log=None, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(
        runner,
        settings.listen_host,
        settings.listen_port,
        shutdown_timeout=5,
        reuse_port=reuse_port or None,  # ``serve --workers N``: the children share the port
    )
    try:
        await site.start()
    except OSError as exc:  # taken since ``serve`` checked it (a race): the same one line
        await runner.cleanup()
        await engine.close()
        if exc.errno != errno.EADDRINUSE:
            raise
        from .listen_check import listen_in_use

        raise listen_in_use(settings.listen_host, settings.listen_port) from exc
    address = f"{settings.listen_host}:{settings.listen_port}"
    log.info("serve_started", listen=address)
    if settings.worker_slot[0] == 0:  # once per daemon: retention, and the growth it implies
        from ..db.storage import log_outlook
        from ..db.storage_repository import StorageRepository

        storage = StorageRepository.of(engine.store)
        engine.jobs.spawn(log_outlook(storage, settings.retention_days), "storage-outlook")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    tasks = [
        asyncio.create_task(supervised(name, w, stop), name=name) for name, w in engine.workers
    ]
    frozen = collector_after_start_up()
    log.info("collector_tuned", frozen_objects=frozen, gen0_threshold=GC_GEN0_THRESHOLD)
    if ready is not None:
        ready(address)
    try:
        await stop.wait()
    finally:
        log.info("serve_stopping")
        await runner.cleanup()
        stop.set()
        _done, pending = await asyncio.wait(tasks, timeout=10) if tasks else (set(), set())
        for t in pending:
            t.cancel()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
        await engine.close()
        log.info("serve_stopped")
