"""``hookproof serve``: the API and the workers in one process; graceful shutdown on SIGTERM."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import structlog
from aiohttp import web

from hookproof.config import Settings
from hookproof.events import EventStore

from .api import ApiContext, create_app
from .consumers import ConsumerService
from .migrate import migrate
from .portal.service import PortalService
from .registry import async_projections
from .services import Services
from .subscriptions import SubscriptionService
from .tenants import TenantService

__all__ = ["Engine", "build_engine", "serve"]

log = structlog.get_logger("hookproof.daemon")

Worker = Callable[[asyncio.Event], Awaitable[None]]


@dataclass
class Engine:
    """Everything a running hookproof holds; built once, used by serve, the demo and tests."""

    settings: Settings
    pool: asyncpg.Pool
    store: EventStore
    tenants: TenantService
    subscriptions: SubscriptionService
    api: ApiContext
    workers: list[tuple[str, Worker]] = field(default_factory=list)
    extra_routes: list[web.RouteDef] = field(default_factory=list)
    services: Services = field(default_factory=Services)
    closers: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    #: run once at close, after every writer of this process stopped, before the closers
    settlers: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    roles: frozenset[str] = frozenset({"api", "dispatcher", "projector", "scheduler"})
    background: set[asyncio.Task[Any]] = field(default_factory=set)

    def app(self) -> web.Application:
        return create_app(self.api, self.extra_routes)

    def spawn(self, coro: Awaitable[Any], name: str) -> asyncio.Task[Any]:
        """Run a background job owned by the engine (awaited or cancelled on close)."""
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        task.set_name(name)
        self.background.add(task)
        task.add_done_callback(self.background.discard)
        return task

    async def drain(self, wait_s: float = 30.0) -> None:
        """Wait for background jobs (tests and the demo use it for determinism)."""
        while self.background:
            await asyncio.wait(list(self.background), timeout=wait_s)

    async def close(self) -> None:
        for t in list(self.background):
            t.cancel()
        if self.background:
            await asyncio.wait(list(self.background), timeout=5)
        for settle in self.settlers:  # e.g. the projector reaches the committed head
            try:
                await settle()
            except Exception as exc:
                log.warning("settle_failed", error=type(exc).__name__)
        for closer in reversed(self.closers):
            try:
                await closer()
            except Exception as exc:
                log.warning("close_failed", error=type(exc).__name__)


async def _periodic(
    stop: asyncio.Event, interval: float, fn: Callable[[], Awaitable[Any]], name: str
) -> None:
    while not stop.is_set():
        try:
            await fn()
        except Exception as exc:  # a worker must survive a bad tick; the log says why
            log.warning("worker_tick_failed", worker=name, error=type(exc).__name__)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), interval)


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


async def build_engine(settings: Settings, pool: asyncpg.Pool) -> Engine:
    """Wire the services. Features register their workers and routes here."""
    async with pool.acquire() as conn:
        await migrate(conn)
    from .archive import attach_archive

    store = attach_archive(EventStore(pool), settings)
    tenants = TenantService(store, cache_s=settings.token_cache_s)
    subs = SubscriptionService(store, settings)
    consumers = ConsumerService(store, clock=subs.clock)
    subs.consumers = consumers
    portal = PortalService(store, settings, consumers, clock=subs.clock)
    api = ApiContext(
        settings=settings,
        store=store,
        tenants=tenants,
        subscriptions=subs,
        consumers=consumers,
        portal=portal,
    )
    engine = Engine(settings, pool, store, tenants, subs, api, roles=settings.roles)

    from .projections_runner import projector_role

    if "projector" in engine.roles:  # ``serve --workers N``: the first child only
        projector, settle = projector_role(store, async_projections())
        engine.workers.append(("projector", projector))
        engine.settlers.append(settle)
    engine.workers.append(("expiry", lambda stop: _periodic(stop, 5.0, subs.expire_due, "expiry")))
    if settings.retention_days is not None and "scheduler" in engine.roles:
        from .archive import Archiver

        archiver = Archiver(pool, settings)
        engine.services.archiver = archiver

        async def archive_tick() -> None:
            days = settings.retention_days or 0.0
            await archiver.run(datetime.now(UTC) - timedelta(days=days))

        engine.workers.append(
            (
                "archiver",
                lambda stop: _periodic(stop, settings.archive_interval_s, archive_tick, "archiver"),
            )
        )
    from . import features, tracing
    from .delivery.repository import DeliveryRepository
    from .keys import KeyRing
    from .rotation_repository import RotationRepository

    if tracing.configure_from_env():

        async def stop_tracing() -> None:
            await asyncio.to_thread(tracing.shutdown)

        engine.closers.insert(0, stop_tracing)  # closers run last-first: flush at the very end
    ports = features.Ports(
        keyring=KeyRing(pool, settings, store=store),
        deliveries=DeliveryRepository(pool),
        rotation=RotationRepository(pool),
    )
    await features.install(engine, ports)
    return engine


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
    await site.start()
    address = f"{settings.listen_host}:{settings.listen_port}"
    log.info("serve_started", listen=address)
    if settings.worker_slot[0] == 0:  # once per daemon: retention, and the growth it implies
        from .storage import log_outlook
        from .storage_repository import StorageRepository

        storage = StorageRepository.of(engine.store)
        engine.spawn(log_outlook(storage, settings.retention_days), "storage-outlook")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    tasks = [
        asyncio.create_task(supervised(name, w, stop), name=name) for name, w in engine.workers
    ]
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
