"""Broker connections pooled per (vetted address, port, TLS, credentials digest).

A connection is keyed by :class:`PoolKey`: the broker type, the vetted peer address and port,
whether TLS is on and the host name it verified, the AMQP vhost, the keyed digest of the
credentials it logged in with, and the tenant (``owner``), so one tenant's connection never
carries another's credentials or publishes. It carries a later publish only when its address
is in that publish's vetted set (the key says so), it is still open, and it is within the
life bounds of the egress pool (idle at most 15 s, age at most 60 s, a bounded number of
publishes). Concurrent publishes to one key share one connection (AMQP confirms and JetStream
acks are pipelined); opening is done once per key at a time, and a failed opening fails the
publishes that waited for it (the next publish opens again), so a broker that never answers
costs each waiter one deadline, never one per waiter ahead of it. Connections left idle are
closed in the background (:meth:`BrokerPool._reap`), not only when a publish next looks.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

import structlog

from ...egress.addresses import IPAddress

__all__ = ["BrokerPool", "BrokerPoolLimits", "PoolKey", "Pooled"]

log = structlog.get_logger("hookproof.destinations")


@dataclass(frozen=True, slots=True)
class PoolKey:
    """Which connection may carry a publish (equal keys only)."""

    type: str
    address: IPAddress
    port: int
    tls: bool
    server_hostname: str
    vhost: str | None
    credentials_digest: str | None
    #: the tenant whose publishes it carries: never shared across tenants, so one tenant's
    #: destination that hangs or breaks a connection touches no other tenant's publishes
    owner: str | None = None


@dataclass(frozen=True, slots=True)
class BrokerPoolLimits:
    """Life bounds of a pooled broker connection."""

    idle_s: float = 15.0
    max_age_s: float = 60.0
    max_publishes: int = 100_000


class Pooled(Protocol):
    """What the pool needs of a connection."""

    opened_at: float
    last_used: float
    publishes: int

    def is_open(self) -> bool: ...

    async def close(self) -> None: ...


C = TypeVar("C", bound=Pooled)


class BrokerPool(Generic[C]):
    """Connections by :class:`PoolKey` under :class:`BrokerPoolLimits`."""

    def __init__(self, limits: BrokerPoolLimits | None = None) -> None:
        self.limits = limits or BrokerPoolLimits()
        self._conns: dict[PoolKey, C] = {}
        self._opening: dict[PoolKey, asyncio.Future[C]] = {}
        self._closing: set[asyncio.Task[None]] = set()
        self._reaper: asyncio.Task[None] | None = None
        self.opened = 0
        self.reused = 0
        self.closed = False

    def __len__(self) -> int:
        return len(self._conns)

    def holds(self, key: PoolKey) -> bool:
        """Whether a connection is pooled under *key* (usable or not)."""
        return key in self._conns

    def _refusal(self, conn: C, now: float) -> str | None:
        if not conn.is_open():
            return "closed"
        if now - conn.opened_at > self.limits.max_age_s:
            return "max_age"
        if now - conn.last_used > self.limits.idle_s:
            return "idle"
        if conn.publishes >= self.limits.max_publishes:
            return "max_publishes"
        return None

    async def acquire(self, key: PoolKey, open_: Callable[[], Awaitable[C]]) -> tuple[C, bool]:
        """A usable connection for *key* and whether it was reused (else opened now)."""
        if self.closed:
            raise RuntimeError("the broker pool is closed")
        loop = asyncio.get_running_loop()
        while True:
            conn = self._conns.get(key)
            if conn is not None:
                reason = self._refusal(conn, loop.time())
                if reason is None:
                    conn.last_used = loop.time()
                    conn.publishes += 1
                    self.reused += 1
                    return conn, True
                self.discard(key, conn, reason)
            pending = self._opening.get(key)
            if pending is not None:
                # the connection being opened for the key is this publish's too: its failure
                # (a broker that never answers) is this publish's failure, never a next
                # opening after this wait (the deadlines of the waiters would add up)
                await asyncio.shield(pending)
                continue
            future: asyncio.Future[C] = loop.create_future()
            self._opening[key] = future
            try:
                conn = await open_()
            except BaseException as exc:
                if not future.done():
                    future.set_exception(exc if isinstance(exc, Exception) else RuntimeError())
                    future.exception()  # retrieved: the waiters raise it themselves
                raise
            finally:
                self._opening.pop(key, None)
            conn.opened_at = conn.last_used = loop.time()
            conn.publishes = 1
            self._conns[key] = conn
            self.opened += 1
            if self._reaper is None or self._reaper.done():
                self._reaper = loop.create_task(self._reap())
            future.set_result(conn)
            return conn, False

    async def _reap(self) -> None:
        """Close the connections no publish took for twice ``idle_s`` (longer than any one
        publish may last, so none is cut mid-confirmation) or already closed, even when no
        publish comes again; ends when the pool is empty (the next opening starts it)."""
        loop = asyncio.get_running_loop()
        while self._conns and not self.closed:
            await asyncio.sleep(self.limits.idle_s / 2)
            now = loop.time()
            for key, conn in list(self._conns.items()):
                if not conn.is_open():
                    self.discard(key, conn, "closed")
                elif now - conn.last_used > 2 * self.limits.idle_s:
                    self.discard(key, conn, "idle")

    def discard(self, key: PoolKey, conn: C, reason: str) -> None:
        """Forget *conn* (if it is the key's) and close it in the background."""
        if self._conns.get(key) is conn:
            del self._conns[key]
        log.info("broker_connection_closed", type=key.type, reason=reason, port=key.port)
        task = asyncio.get_running_loop().create_task(conn.close())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def close(self) -> None:
        """Close every connection."""
        self.closed = True
        if self._reaper is not None:
            self._reaper.cancel()
        conns = list(self._conns.values())
        self._conns.clear()
        for conn in conns:
            try:
                await conn.close()
            except Exception as exc:  # closing a dead connection: nothing to report
                log.debug("broker_connection_close_failed", error=type(exc).__name__)
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)
