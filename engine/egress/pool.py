"""Which connection serves this request: the pinned pool, its rules (pure) and
:class:`Connector`, the pool that applies them (DESIGN.md section 5).

A connection is opened only to an address vetted for the request that opens it. A pooled
connection carries a later request only for the same origin (scheme, host, port, TLS
settings) and only when its peer address is in that later request's vetted set, while it is
younger than ``max_age_s``, idle no longer than ``idle_s`` and has carried fewer than
``max_requests`` requests; otherwise it is closed, never used. :func:`reuse_refusal` is that
rule; :class:`Connector` applies it to every pooled connection, and hands one out only if
nothing arrived on it while it was idle (:mod:`.connection`). New connections are opened to the
addresses :class:`.guard.VettedResolver` hands out, through ``aiohappyeyeballs`` with
:func:`.guard.guarded_socket` as the socket factory, then ``loop.create_connection(sock=...)``
and a TLS handshake verifying the URL host; the connected peer must be vetted, its address
and certificate are recorded once per connection (:class:`ConnectionFacts`).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import ssl
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import aiohappyeyeballs
import structlog

from .addresses import IPAddress, format_ip
from .connection import HttpConnection
from .errors import Refusal
from .failures import FailureCode
from .guard import VettedResolver, addr_infos, socket_factory
from .proxy import EgressProxy, open_tunnel
from .result import PeerCertificate, describe_certificate

if TYPE_CHECKING:
    from .context import Attempt
    from .head import Target
    from .identity import ClientIdentity

__all__ = [
    "ConnectionFacts",
    "Connector",
    "IdleConnections",
    "Origin",
    "PoolLimits",
    "PooledConnection",
    "over_idle_bound",
    "reuse_refusal",
    "site_is_recurring",
]

log = structlog.get_logger("hookproof.egress")

#: aiohttp's default Happy Eyeballs delay (RFC 8305) and interleave.
_HAPPY_EYEBALLS_DELAY: Final = 0.25
_INTERLEAVE: Final = 1

#: (scheme, host, port, TLS settings id, client identity digest or ""): what a connection may
#: be reused for (a connection made with one client certificate never carries a request made
#: with another, or with none: DESIGN.md section 14).
Origin = tuple[str, str, int, int, str]


@dataclass(frozen=True, slots=True)
class PoolLimits:
    """Bounded life of a pooled connection. ``enabled=False``: one connection per request.

    ``max_idle``: idle connections kept at most (all origins together), which bounds the
    memory many subscriber sites can take (:func:`over_idle_bound` says which one goes).
    ``keep_recent_s``: an idle connection used this recently is kept rather than the one just
    released (sites cycling through more connections than the bound keep most of theirs,
    where closing the longest idle would close each one just before its next use).
    ``max_idle_first``: of those, idle connections of sites that are not recurring
    (:func:`site_is_recurring`) kept at most: a fan-out to thousands of sites that each get
    one request would otherwise fill the whole bound with connections closed unused at their
    idle timeout (~45 KiB each).
    """

    idle_s: float = 15.0
    max_age_s: float = 60.0
    max_requests: int = 1000
    enabled: bool = True
    max_idle: int = 512
    keep_recent_s: float = 5.0
    max_idle_first: int = 128


@dataclass(slots=True)
class ConnectionFacts:
    """What is known of one connection: recorded once, when it was opened."""

    origin: Origin
    peer: tuple[IPAddress, int]
    peer_text: str
    certificate: PeerCertificate | None
    opened_at: float
    last_used: float
    requests: int = 0
    recurring: bool = True  # its last request had an earlier one to its origin (site_is_recurring)
    #: the forward proxy the connection was tunnelled through (``host:port``), if any
    proxy: str | None = None


def reuse_refusal(
    conn: ConnectionFacts,
    origin: Origin,
    vetted: frozenset[tuple[IPAddress, int]],
    now: float,
    limits: PoolLimits,
) -> str | None:
    """Why ``conn`` must not carry this request (``None``: it may)."""
    if not limits.enabled:
        return "pool_disabled"
    if conn.origin != origin:
        return "other_origin"
    if conn.peer not in vetted:
        return "peer_not_vetted"
    if now - conn.opened_at >= limits.max_age_s:
        return "max_age"
    if now - conn.last_used > limits.idle_s:
        return "idle"
    if conn.requests >= limits.max_requests:
        return "max_requests"
    return None


def over_idle_bound(longest_idle_used_at: float, now: float, limits: PoolLimits) -> str:
    """With one idle connection over ``limits.max_idle``: ``"longest_idle"`` (close the
    connection idle the longest) unless that one was used within ``keep_recent_s``, then
    ``"released"`` (close the connection just released instead)."""
    if now - longest_idle_used_at < limits.keep_recent_s:
        return "released"
    return "longest_idle"


def site_is_recurring(
    previous_request_at: float | None, now: float, active_origins: int, limits: PoolLimits
) -> bool:
    """Whether the connection of this request to an origin is worth keeping idle up to
    ``max_idle``: the origin had an earlier request within ``idle_s`` (it is likely to send
    again before the connection idles out), and no more than twice ``max_idle`` origins had
    requests within ``idle_s`` (``active_origins``; with more, the pool could keep fewer
    than half of them, and a sweep over them would find most connections closed anyway)."""
    return (
        previous_request_at is not None
        and now - previous_request_at <= limits.idle_s
        and active_origins <= 2 * limits.max_idle
    )


@dataclass(slots=True, eq=False)
class PooledConnection:
    """One open connection of the pool: the pool's one record of it."""

    conn: HttpConnection
    facts: ConnectionFacts
    #: parked, and its last request was the first to its origin (counts to ``max_idle_first``)
    first: bool = False


class IdleConnections:
    """The parked connections, in release order (the oldest first) and per origin (the last
    released last), and how many of them are ``first``: kept consistent by these methods
    alone."""

    __slots__ = ("_by_origin", "_order", "first")

    def __init__(self) -> None:
        self._order: OrderedDict[HttpConnection, PooledConnection] = OrderedDict()
        self._by_origin: dict[Origin, list[PooledConnection]] = {}
        self.first = 0

    def __len__(self) -> int:
        return len(self._order)

    def snapshot(self) -> list[PooledConnection]:
        """The parked connections, the oldest release first (a copy: safe to remove from)."""
        return list(self._order.values())

    def oldest(self) -> PooledConnection:
        return next(iter(self._order.values()))

    def park(self, pooled: PooledConnection) -> None:
        pooled.first = not pooled.facts.recurring
        self.first += pooled.first
        self._order[pooled.conn] = pooled
        self._by_origin.setdefault(pooled.facts.origin, []).append(pooled)

    def take(self, origin: Origin) -> PooledConnection | None:
        """The connection to ``origin`` released last, unparked; None when there is none."""
        stack = self._by_origin.get(origin)
        if not stack:
            return None
        pooled = stack.pop()
        if not stack:
            del self._by_origin[origin]
        self._unpark(pooled)
        return pooled

    def remove(self, pooled: PooledConnection) -> None:
        """Unpark ``pooled`` if it is parked."""
        if pooled.conn not in self._order:
            return
        self._unpark(pooled)
        origin = pooled.facts.origin
        stack = self._by_origin.get(origin)
        if stack is not None:
            try:
                stack.remove(pooled)
            except ValueError:
                pass
            if not stack:
                del self._by_origin[origin]

    def _unpark(self, pooled: PooledConnection) -> None:
        del self._order[pooled.conn]
        self.first -= pooled.first
        pooled.first = False

    def clear(self) -> None:
        self._order.clear()
        self._by_origin.clear()
        self.first = 0


class Connector:
    """The pinned pool: opens guarded connections and keeps idle ones under :mod:`.pool`'s
    rules. ``opened`` and ``reused`` count connections opened and pooled ones handed out."""

    def __init__(
        self,
        *,
        limits: PoolLimits,
        ssl_ctx: ssl.SSLContext,
        connect_timeout_s: float,
        allow_pairs: frozenset[tuple[IPAddress, int]] = frozenset(),
        proxy: EgressProxy | None = None,
    ) -> None:
        self.limits = limits
        self.allow_pairs = allow_pairs
        #: the operator's forward proxy: every new connection is a tunnel through it
        self.proxy = proxy
        self._ssl_ctx = ssl_ctx
        self._connect_timeout_s = connect_timeout_s
        self._resolver = VettedResolver()
        self.opened = 0
        self.reused = 0
        self.closed = False
        #: every open connection, with the pool's one record of it
        self._open: dict[HttpConnection, PooledConnection] = {}
        #: the parked ones (a subset of ``_open``)
        self._idle = IdleConnections()
        # origin -> when its last request started, for the origins of the last ``idle_s``
        self._last_request: dict[Origin, float] = {}
        self._sweeper: asyncio.TimerHandle | None = None

    def origin(self, target: Target, identity: ClientIdentity | None = None) -> Origin:
        if identity is None:
            return ("https", target.host, target.port, id(self._ssl_ctx), "")
        return ("https", target.host, target.port, id(identity.ssl_ctx), identity.digest)

    async def acquire(self, target: Target, attempt: Attempt) -> HttpConnection:
        """A connection for ``attempt``: a pooled one under the pool's rule, or a new one."""
        if self.closed:
            raise RuntimeError("the connector is closed")
        now = asyncio.get_running_loop().time()
        origin = self.origin(target, attempt.identity)
        recurring = self._note_request(origin, now)
        conn = self._pooled(origin, attempt, now)
        if conn is None:
            conn = await self._connect(target, attempt, origin)
            self.opened += 1
            attempt.reused = False
        else:
            self.reused += 1
            attempt.reused = True
        facts = self._open[conn].facts
        facts.requests += 1
        facts.last_used = now
        facts.recurring = recurring
        attempt.facts = facts
        attempt.connected_at = attempt.now()
        attempt.peer = (facts.peer_text, facts.peer[1])
        attempt.proxy = facts.proxy
        attempt.certificate = facts.certificate
        return conn

    def _pooled(self, origin: Origin, attempt: Attempt, now: float) -> HttpConnection | None:
        while (pooled := self._idle.take(origin)) is not None:
            conn, facts = pooled.conn, pooled.facts
            if not conn.take():
                self._forget(conn)
                continue
            reason = reuse_refusal(facts, origin, attempt.vetted, now, self.limits)
            if reason is not None:
                log.info(
                    "egress_pooled_connection_closed",
                    reason=reason,
                    peer=facts.peer_text,
                    requests=facts.requests,
                )
                conn.close()
                self._forget(conn)
                continue
            return conn
        return None

    async def _tunnel(
        self, proxy: EgressProxy, target: Target
    ) -> tuple[socket.socket, tuple[IPAddress, int]]:
        """A tunnel through the proxy to the first vetted address that gets one (in the
        answer's order): ``CONNECT <address>:<port>``, never the host name."""
        results = await self._resolver.resolve(target.host, target.port, socket.AF_UNSPEC)
        last: Refusal | None = None
        for r in results:
            addr = ipaddress.ip_address(r["host"])
            try:
                return await open_tunnel(proxy, addr, r["port"]), (addr, r["port"])
            except Refusal as refusal:
                last = refusal
        assert last is not None
        raise last

    async def _connect(
        self, target: Target, attempt: Attempt, origin: Origin
    ) -> HttpConnection:
        loop = asyncio.get_running_loop()
        tunnel_to: tuple[IPAddress, int] | None = None
        if self.proxy is not None:
            attempt.proxy = self.proxy.text  # recorded even when the proxy fails
            # the tunnel has its own bound: a proxy that hangs is the proxy's failure
            try:
                async with asyncio.timeout(self._connect_timeout_s):
                    sock, tunnel_to = await self._tunnel(self.proxy, target)
            except TimeoutError as exc:
                refusal = Refusal(FailureCode.PROXY_FAILED, "the proxy did not answer in time")
                attempt.refusal = attempt.refusal or refusal
                raise refusal from exc
            except Refusal as failed:
                attempt.refusal = attempt.refusal or failed
                raise
        async with asyncio.timeout(self._connect_timeout_s):
            if tunnel_to is None:
                results = await self._resolver.resolve(target.host, target.port, socket.AF_UNSPEC)
                sock = await aiohappyeyeballs.start_connection(
                    addr_infos(results),
                    happy_eyeballs_delay=_HAPPY_EYEBALLS_DELAY,
                    interleave=_INTERLEAVE,
                    socket_factory=socket_factory,
                )
            identity = attempt.identity
            ctx = identity.ssl_ctx if identity is not None else self._ssl_ctx
            conn = HttpConnection(ctx, target.host)
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                await loop.create_connection(lambda: conn, sock=sock)
                conn.sock = sock
            except BaseException:
                sock.close()
                raise
            try:
                await conn.handshake()
            except BaseException:
                conn.close()
                raise
        assert conn.transport is not None
        peer = conn.transport.get_extra_info("peername")
        try:
            peer_pair = (ipaddress.ip_address(str(peer[0])), int(peer[1])) if peer else None
        except ValueError:
            peer_pair = None
        if tunnel_to is not None:  # the socket's peer is the proxy; the tunnel's is vetted
            peer_pair = tunnel_to
        if peer_pair is None or peer_pair not in attempt.vetted:
            # unreachable while the socket guard works; kept as an independent check
            conn.close()
            refusal = Refusal(FailureCode.REFUSED_ADDRESS, "connected peer was not vetted")
            attempt.refusal = attempt.refusal or refusal
            log.error("egress_unvetted_peer", peer=str(peer))
            raise refusal
        der = conn.tls.getpeercert(binary_form=True)
        now = loop.time()
        facts = ConnectionFacts(
            origin=origin,
            peer=peer_pair,
            peer_text=format_ip(peer_pair[0]),
            certificate=describe_certificate(der) if der else None,
            opened_at=now,
            last_used=now,
            proxy=self.proxy.text if self.proxy is not None else None,
        )
        self._open[conn] = PooledConnection(conn, facts)
        conn.on_dead = self._died_idle
        if peer_pair in self.allow_pairs:
            log.warning(
                "egress_allowance_used",
                address=format_ip(peer_pair[0]),
                port=peer_pair[1],
                host=attempt.endpoint.host,
            )
        return conn

    def release(self, conn: HttpConnection) -> None:
        """Back to the pool if the exchange ended cleanly and the bounds allow; else closed.
        At most ``limits.max_idle`` idle connections (:func:`.pool.over_idle_bound` chooses
        which one goes), of which at most ``limits.max_idle_first`` not recurring."""
        pooled = self._open.get(conn)
        if (
            self.closed
            or pooled is None
            or not self.limits.enabled
            or not conn.reusable()
            or (not pooled.facts.recurring and not self._room_for_first())
            or not conn.park()
        ):
            conn.close()
            self._forget(conn)
            return
        self._idle.park(pooled)
        now = asyncio.get_running_loop().time()
        while len(self._idle) > self.limits.max_idle:
            old = self._idle.oldest()
            if over_idle_bound(old.facts.last_used, now, self.limits) == "released":
                old = pooled
            self._idle.remove(old)
            old.conn.close()
            self._forget(old.conn)
            log.debug("egress_pooled_connection_closed", reason="max_idle")
        if self._sweeper is None and len(self._idle):
            self._schedule_sweep()

    def _room_for_first(self) -> bool:
        """Whether one more non-recurring connection may stay idle (``max_idle_first``)."""
        return self._idle.first < self.limits.max_idle_first

    def _forget(self, conn: HttpConnection) -> None:
        self._open.pop(conn, None)

    def _died_idle(self, conn: HttpConnection) -> None:
        """An idle connection closed itself: a byte or an EOF arrived while it was idle."""
        pooled = self._open.get(conn)
        if pooled is not None:
            self._idle.remove(pooled)
        self._forget(conn)
        if conn.stale:
            log.warning(
                "egress_pooled_connection_closed",
                reason="bytes_while_idle",
                peer=pooled.facts.peer_text if pooled is not None else None,
                requests=pooled.facts.requests if pooled is not None else None,
            )

    def _schedule_sweep(self) -> None:
        interval = max(0.05, min(self.limits.idle_s, self.limits.max_age_s) / 2)
        self._sweeper = asyncio.get_running_loop().call_later(interval, self._sweep)

    def _sweep(self) -> None:
        """Close idle connections past their idle or age bound (reuse would refuse them)."""
        self._sweeper = None
        now = asyncio.get_running_loop().time()
        limits = self.limits
        for pooled in self._idle.snapshot():
            facts = pooled.facts
            if now - facts.last_used > limits.idle_s or now - facts.opened_at >= limits.max_age_s:
                self._idle.remove(pooled)
                pooled.conn.close()
                self._forget(pooled.conn)
        if len(self._idle) and not self.closed:
            self._schedule_sweep()

    def _note_request(self, origin: Origin, now: float) -> bool:
        """Record a request to ``origin``; whether its site is recurring
        (:func:`.pool.site_is_recurring`). Origins silent for ``idle_s`` are forgotten, so
        ``_last_request`` holds the origins of the last ``idle_s``."""
        last = self._last_request
        previous = last.pop(origin, None)
        last[origin] = now
        idle_s = self.limits.idle_s
        for _ in range(2):  # oldest first; at most two per request, so this stays O(1)
            oldest = next(iter(last))
            if now - last[oldest] <= idle_s:
                break
            del last[oldest]
        return site_is_recurring(previous, now, len(last), self.limits)

    async def close(self) -> None:
        """Close every connection (idle or not). Idempotent."""
        self.closed = True
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None
        conns = list(self._open)
        self._idle.clear()
        self._open.clear()
        for conn in conns:
            conn.close()
        if conns:
            await asyncio.sleep(0)  # let the transports run their close callbacks
