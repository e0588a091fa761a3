"""The CLI's per-command context: a database target and a pool, migrated, closed after.
Commands get ports from it (the event store, repositories, the key ring, an engine), never the
pool; each is built by the composition root's steps (``engine/runtime/composition.py``), as
``serve`` builds them."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import asyncpg
import structlog

from hookproof.config import Settings
from hookproof.errors import StoreError
from hookproof.events import EventStore

from ..common.clock import Clock, system_clock
from ..db.database import (
    DatabaseTarget,
    connect_one,
    connect_pool,
    resolve_database,
)
from ..db.repository import PoolRepository
from ..keys.master import MasterKey, locate_master_key

if TYPE_CHECKING:
    from ..archive import Archiver
    from ..delivery.recover import Recovery
    from ..keys import KeyRing
    from ..portal.tenants import TenantService
    from ..rollouts.service import RolloutService
    from ..runtime.composition import Engine
    from ..subscriptions import SubscriptionService

__all__ = ["Context"]

log = structlog.get_logger("hookproof.cli")

R = TypeVar("R", bound=PoolRepository)


class Context:
    """A database target plus a pool, opened for one command and closed after it.

    ``reading``: a command that only reads (``audit``, ``projections rebuild --verify``) reads
    the hot standby of ``HOOKPROOF_READ_DATABASE_URL`` when one is configured, through
    read-only sessions and without migrating (``on_standby``); a standby that cannot be
    reached is logged (``standby_unavailable``) and the primary is read instead.

    ``sealed``: the command opens sealed material (the key ring, an engine, ``serve``): the
    master key is located (stated on stderr: fingerprint and where) and checked against the
    database's check value before anything is migrated or written (``engine/keys/
    master_check.py``); a key that does not open it ends the command, the database untouched."""

    def __init__(
        self,
        settings: Settings,
        *,
        max_size: int = 10,
        clock: Clock = system_clock,
        reading: bool = False,
        announce: bool = True,
        sealed: bool = False,
    ) -> None:
        self.settings = settings
        self.reading = reading
        self.sealed = sealed
        self.on_standby = False
        self.announce = announce
        self.max_size = max_size
        self.clock = clock
        self.target: DatabaseTarget | None = None
        self._pool: asyncpg.Pool | None = None
        self._store: EventStore | None = None

    async def __aenter__(self) -> Context:
        from ..runtime.composition import construct_schema

        url = self.settings.read_database_url if self.reading else None
        if url:
            try:
                self._pool = await connect_pool(url, max_size=self.max_size, read_only=True)
                self.target = DatabaseTarget(url=url, embedded=False)
                self.on_standby = True
                return self  # the primary's schema reaches the standby through its WAL
            except StoreError as exc:
                log.warning("standby_unavailable", error=exc.code, fallback="primary")
        self.target = resolve_database(self.settings)
        if self.announce:  # on stderr: stdout stays the command's answer
            print(f"hookproof: database: {self.target.describe()}", file=sys.stderr, flush=True)
            if self.target.created:
                print(
                    "hookproof: a new embedded database was created here; to use the one of a"
                    " running serve, set HOOKPROOF_DATA_DIR to its data dir (or"
                    " HOOKPROOF_DATABASE_URL to its Postgres)",
                    file=sys.stderr,
                    flush=True,
                )
        try:
            self._pool = await connect_pool(self.target.url, max_size=self.max_size)
            if not self.sealed:
                await construct_schema(self._pool)
            else:  # after the database answered: its errors come first
                master = locate_master_key(self.settings)
                if self.announce:
                    print(f"hookproof: {master.describe()}", file=sys.stderr, flush=True)
                await _guarded_schema(self._pool, master)
        except BaseException:
            await self.__aexit__()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close_pool()
        if self.target is not None:
            self.target.close()

    async def close_pool(self) -> None:
        """Close the pool early, keeping the target (an embedded server) until the exit."""
        pool, self._pool, self._store = self._pool, None, None
        if pool is not None:
            await pool.close()

    def _open(self) -> asyncpg.Pool:
        assert self._pool is not None, "the context is not open"
        return self._pool

    def _sealed(self) -> asyncpg.Pool:
        """The pool, for a port that opens sealed material (the context checked the key)."""
        if not self.sealed:
            raise RuntimeError("this command opens sealed material: open it with sealed=True")
        return self._open()

    # -- ports ----------------------------------------------------------------------------

    @property
    def store(self) -> EventStore:
        """The event store over this context's pool (one per context), as the engine's."""
        if self._store is None:
            from ..runtime.composition import construct_store

            self._store = construct_store(self._open(), self.settings)
        return self._store

    @asynccontextmanager
    async def session(self) -> AsyncIterator[asyncpg.Connection]:
        """A connection of its own, outside the pool (what it creates in temporary tables
        goes with it)."""
        assert self.target is not None, "the context is not open"
        conn = await connect_one(self.target.url)
        try:
            yield conn
        finally:
            await conn.close()

    def repository(self, kind: type[R]) -> R:
        """A repository over this context's pool."""
        return kind(self._open())

    def keyring(self) -> KeyRing:
        from ..runtime.composition import construct_keyring

        return construct_keyring(self._sealed(), self.settings, self.store, self.clock)

    def tenants(self) -> TenantService:
        from ..runtime.composition import construct_tenants

        return construct_tenants(self.store, self.settings, self.clock)

    def subscriptions(self) -> SubscriptionService:
        """Subscriptions without the key ring or consumers (what the operator commands read
        and transition; a registration needs the API)."""
        from ..runtime.composition import construct_subscriptions

        return construct_subscriptions(
            self.store, self.settings, keyring=None, consumers=None, clock=self.clock
        )

    def rollouts(self, ring: KeyRing | None = None) -> RolloutService:
        """Rollouts over ``ring`` (default: a key ring of this context) and subscriptions."""
        from ..runtime.composition import construct_rollouts

        ring = ring if ring is not None else self.keyring()
        return construct_rollouts(self.store, self.settings, ring, self.subscriptions(), self.clock)

    def recovery(self) -> Recovery:
        from ..runtime.composition import construct_recovery

        return construct_recovery(self.store, self.subscriptions(), self.clock)

    def archiver(self) -> Archiver:
        from ..runtime.composition import construct_archiver

        return construct_archiver(self._sealed(), self.settings, store=self.store, clock=self.clock)

    async def engine(self) -> Engine:
        """A whole engine (``build_engine``) on this context's pool; the caller closes it."""
        from ..runtime.composition import EngineOptions, build_engine

        return await build_engine(self.settings, self._sealed(), EngineOptions(clock=self.clock))

    async def serve(self, **options: Any) -> None:
        """``daemon.serve`` on this context's pool until it is stopped."""
        from ..runtime.daemon import serve

        await serve(self.settings, self._sealed(), **options)


async def _guarded_schema(pool: asyncpg.Pool, master: MasterKey) -> None:
    """Check ``master`` (read only), migrate, then record its check value if there is none."""
    from ..keys.master_check import record_master_key, verify_master_key
    from ..runtime.composition import construct_schema

    async with pool.acquire() as conn:
        record = await verify_master_key(conn, master)
    await construct_schema(pool)
    if record:
        async with pool.acquire() as conn:
            master = await record_master_key(conn, master)
    log.info("master_key_in_use", fingerprint=master.fingerprint, where=master.where)
