"""How bytes move: connections, the pinned pool and one exchange, on public interfaces only.

:class:`WireAdapter` sends one request under one :class:`Attempt` (DESIGN.md section 5):

- :class:`Connector` hands out a connection for the request's origin: a pooled one only if
  :func:`.pool.reuse_refusal` allows it and it is still idle and silent (a connection that
  received a byte while idle closed itself, :mod:`.wire`); else a new one, opened to the
  addresses :class:`VettedResolver` hands out (only those vetted for this request: a context
  variable carries the per-request :class:`Attempt`), through ``aiohappyeyeballs`` with
  :func:`guarded_socket` as the socket factory (the last line before a connect: it refuses any
  sockaddr not vetted for this request), then ``loop.create_connection(sock=...)`` and a TLS
  handshake verifying the URL host (:class:`.wire.HttpConnection`). The connected peer must be
  vetted; its address and certificate are recorded once per connection.
- The adapter writes the request head (:func:`request_head`) and body in one TLS record and
  reads the answer to its framed end; the connection goes back to the pool only if the
  exchange ended cleanly (:meth:`.wire.HttpConnection.reusable`).

No redirect is followed, no proxy is read from the environment, nothing is decompressed; time
(the attempt's deadline, the connect timeout) and the response body are bounded. Nothing here
decides policy: the transport vets, the adapter only refuses what was not vetted.
"""

from __future__ import annotations

import asyncio
import contextvars
import errno
import ipaddress
import re
import socket
import ssl
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TypedDict

import aiohappyeyeballs
import structlog
import yarl

from ..endpoint import Endpoint
from ..memo import BoundedMemo
from .addresses import IPAddress, format_ip
from .failures import FailureCode
from .pool import (
    ConnectionFacts,
    Origin,
    PoolLimits,
    over_idle_bound,
    reuse_refusal,
    site_is_recurring,
)
from .result import PeerCertificate, describe_certificate
from .wire import HttpConnection, Response, ResponseError

__all__ = [
    "Attempt",
    "Connector",
    "Refusal",
    "VettedResolver",
    "Wire",
    "WireAdapter",
    "guarded_socket",
    "request_head",
]

log = structlog.get_logger("hookproof.egress")

#: aiohttp's default Happy Eyeballs delay (RFC 8305) and interleave.
_HAPPY_EYEBALLS_DELAY: Final = 0.25
_INTERLEAVE: Final = 1


class Refusal(OSError):
    """Raised by our resolver, socket guard or connector; carries a code."""

    def __init__(self, code: FailureCode, detail: str) -> None:
        super().__init__(errno.EACCES, detail)
        self.code = code
        self.detail = detail


@dataclass(slots=True)
class Attempt:
    """Per-request state, reachable from the resolver and the socket guard through a context
    variable."""

    endpoint: Endpoint
    body_len: int
    t0: float
    deadline: float
    vetted: frozenset[tuple[IPAddress, int]] = frozenset()
    resolved: Sequence[IPAddress] = ()
    refusal: Refusal | None = None
    guard_refusals: int = 0
    socket_opened: int = 0
    peer: tuple[str, int] | None = None
    certificate: PeerCertificate | None = None
    facts: ConnectionFacts | None = None
    reused: bool = False
    connected_at: float | None = None
    resolved_at: float | None = None
    headers_sent: bool = False
    body_sent: int = 0
    written_at: float | None = None

    def now(self) -> float:
        return asyncio.get_running_loop().time() - self.t0

    @property
    def request_written(self) -> bool:
        return self.headers_sent and self.body_sent >= self.body_len


CURRENT: contextvars.ContextVar[Attempt | None] = contextvars.ContextVar(
    "hookproof_egress_attempt", default=None
)


class ResolveResult(TypedDict):
    """One address the resolver hands out (the shape of aiohttp's resolver results)."""

    hostname: str
    host: str
    port: int
    family: int
    proto: int
    flags: int


class VettedResolver:
    """Hands out only the addresses vetted for the current request; never resolves."""

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        attempt = CURRENT.get()
        if attempt is None or attempt.endpoint.host != host or attempt.endpoint.port != port:
            raise Refusal(FailureCode.REFUSED_ADDRESS, "no vetted resolution for this request")
        out: list[ResolveResult] = []
        for addr in attempt.resolved:  # the answer order, each pair vetted
            if (addr, port) not in attempt.vetted:
                continue
            fam = socket.AF_INET6 if addr.version == 6 else socket.AF_INET
            if family and fam != family:
                continue
            out.append(
                {
                    "hostname": host,
                    "host": str(addr),
                    "port": port,
                    "family": fam,
                    "proto": 0,
                    "flags": socket.AI_NUMERICHOST,
                }
            )
        if not out:
            raise Refusal(FailureCode.REFUSED_ADDRESS, "no vetted address for this request")
        return out


def guarded_socket(addr_info: aiohappyeyeballs.AddrInfoType) -> socket.socket:
    """The socket factory for every connect: the last line before a connect."""
    family, type_, proto, _, sockaddr = addr_info
    attempt = CURRENT.get()
    try:
        addr = ipaddress.ip_address(sockaddr[0])
    except ValueError:
        addr = None
    if attempt is None or addr is None or (addr, int(sockaddr[1])) not in attempt.vetted:
        refusal = Refusal(FailureCode.REFUSED_ADDRESS, "socket guard: sockaddr not vetted")
        if attempt is not None:
            attempt.guard_refusals += 1
            attempt.refusal = attempt.refusal or refusal
        log.error("egress_socket_guard_refused", sockaddr=str(sockaddr[0]), port=sockaddr[1])
        raise refusal
    attempt.socket_opened += 1
    sock = socket.socket(family=family, type=type_, proto=proto)
    sock.setblocking(False)
    return sock


def _socket_factory(addr_info: aiohappyeyeballs.AddrInfoType) -> socket.socket:
    return guarded_socket(addr_info)  # looked up per call: the module's current guard


def _addr_infos(results: list[ResolveResult]) -> list[aiohappyeyeballs.AddrInfoType]:
    infos: list[aiohappyeyeballs.AddrInfoType] = []
    for r in results:
        family = socket.AddressFamily(r["family"])
        sockaddr: tuple[Any, ...] = (
            (r["host"], r["port"], 0, 0) if family == socket.AF_INET6 else (r["host"], r["port"])
        )
        infos.append((family, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", sockaddr))
    return infos


@dataclass(slots=True)
class Wire:
    """What came back over the wire (``code``: a failure, ``None``: a complete response)."""

    code: FailureCode | None = None
    detail: str = ""
    status: int | None = None
    headers: tuple[tuple[str, str], ...] = ()
    location: str | None = None
    head_at: float | None = None
    chunks: list[bytes] = field(default_factory=list)
    #: the body ended with the connection without a TLS close_notify (it may be incomplete)
    truncated: bool = False
    #: every byte of the answer read (head, body, chunk framing, trailers)
    received: int = 0


class _Target:
    """One endpoint URL as the pool and the request line need it, computed once: the host
    and port (the vetting resolver's question, SNI and the certificate's name: the URL host)
    and ``head``, the request line and ``Host`` field (as aiohttp wrote them)."""

    __slots__ = ("head", "host", "port", "url")

    def __init__(self, url: str) -> None:
        self.url = yarl.URL(url, encoded=True)
        host, port = self.url.raw_host, self.url.port
        if not host or port is None or self.url.scheme != "https":
            raise ValueError("an absolute https URL is needed")
        self.host: str = host
        self.port: int = port
        host_field = self.url.host_port_subcomponent
        target = self.url.raw_path_qs
        # the request line and Host are written as given: no space or control character may
        # split them (normalise_endpoint refuses such URLs already; this holds on its own)
        if _UNSAFE_IN_HEAD.search(target) or _UNSAFE_IN_HEAD.search(host_field or ""):
            raise ValueError("the URL holds a space or a control character")
        self.head = f"POST {target} HTTP/1.1\r\nHost: {host_field}\r\n".encode("ascii")


#: A space, control character or DEL in the request target or Host would split the head.
_UNSAFE_IN_HEAD: Final = re.compile(r"[\x00-\x20\x7f]")

#: A field name must be a token; a CR, LF or NUL in a name or value would let one field smuggle
#: another (aiohttp refuses them the same way). Valid names seen, with their lower case.
_TOKEN: Final = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_NAMES: Final[BoundedMemo[str, str]] = BoundedMemo(1024)


def _field_name(name: str) -> str:
    low = _NAMES.get(name)
    if low is None:
        if not _TOKEN.fullmatch(name):
            raise ValueError(f"header name {name!r} is not a token")
        low = name.lower()
        _NAMES.put(name, low)
    return low


def request_head(
    target: _Target, headers: list[tuple[str, str]], body_len: int, *, close: bool
) -> bytes:
    """The request head aiohttp would write for ``POST`` of a ``body_len``-byte body:
    ``Host``, the given fields in order, ``Accept: */*`` unless given, ``Content-Length``,
    ``Content-Type: application/octet-stream`` unless given, ``Connection: close`` when the
    connection is not kept (the transport always gives ``User-Agent`` and
    ``Accept-Encoding``). Raises ValueError for a field name that is not a token or a value
    holding CR, LF or NUL."""
    accept = ctype = True
    lines = []
    for name, value in headers:
        low = _field_name(name)
        if low == "accept":
            accept = False
        elif low == "content-type":
            ctype = False
        lines.append(f"{name}: {value}\r\n")
    text = "".join(lines)
    n = len(lines)
    if text.count("\n") != n or text.count("\r") != n or "\x00" in text:
        raise ValueError("a header value holds CR, LF or NUL")
    tail = [text]
    if accept:
        tail.append("Accept: */*\r\n")
    tail.append(f"Content-Length: {body_len}\r\n")
    if ctype:
        tail.append("Content-Type: application/octet-stream\r\n")
    if close:
        tail.append("Connection: close\r\n")
    tail.append("\r\n")
    return target.head + "".join(tail).encode("utf-8")


#: URL targets kept per worker (~1 KiB each): as many as the HTTPS destination's subscription
#: states (engine/delivery/https.py), so a fan-out to 10,000 sites does not keep one per URL.
_TARGET_MEMO: Final = 2_048


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
    ) -> None:
        self.limits = limits
        self.allow_pairs = allow_pairs
        self._ssl_ctx = ssl_ctx
        self._connect_timeout_s = connect_timeout_s
        self._resolver = VettedResolver()
        self.opened = 0
        self.reused = 0
        self.closed = False
        self._facts: dict[HttpConnection, ConnectionFacts] = {}  # open connections
        self._idle: OrderedDict[HttpConnection, Origin] = OrderedDict()  # oldest release first
        self._by_origin: dict[Origin, list[HttpConnection]] = {}  # idle, last released last
        # the idle ones whose last request was the first to its origin (not recurring)
        self._idle_first: dict[HttpConnection, None] = {}
        # origin -> when its last request started, for the origins of the last ``idle_s``
        self._last_request: dict[Origin, float] = {}
        self._sweeper: asyncio.TimerHandle | None = None

    def origin(self, target: _Target) -> Origin:
        return ("https", target.host, target.port, id(self._ssl_ctx))

    async def acquire(self, target: _Target, attempt: Attempt) -> HttpConnection:
        """A connection for ``attempt``: a pooled one under the pool's rule, or a new one."""
        if self.closed:
            raise RuntimeError("the connector is closed")
        now = asyncio.get_running_loop().time()
        origin = self.origin(target)
        recurring = self._note_request(origin, now)
        conn = self._pooled(origin, attempt, now)
        if conn is None:
            conn = await self._open(target, attempt, origin)
            self.opened += 1
            attempt.reused = False
        else:
            self.reused += 1
            attempt.reused = True
        facts = self._facts[conn]
        facts.requests += 1
        facts.last_used = now
        facts.recurring = recurring
        attempt.facts = facts
        attempt.connected_at = attempt.now()
        attempt.peer = (facts.peer_text, facts.peer[1])
        attempt.certificate = facts.certificate
        return conn

    def _pooled(self, origin: Origin, attempt: Attempt, now: float) -> HttpConnection | None:
        stack = self._by_origin.get(origin)
        while stack:
            conn = stack.pop()
            if not stack:
                del self._by_origin[origin]
            self._idle.pop(conn, None)
            self._idle_first.pop(conn, None)
            facts = self._facts.get(conn)
            if facts is None or not conn.take():
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

    async def _open(self, target: _Target, attempt: Attempt, origin: Origin) -> HttpConnection:
        loop = asyncio.get_running_loop()
        results = await self._resolver.resolve(target.host, target.port, socket.AF_UNSPEC)
        async with asyncio.timeout(self._connect_timeout_s):
            sock = await aiohappyeyeballs.start_connection(
                _addr_infos(results),
                happy_eyeballs_delay=_HAPPY_EYEBALLS_DELAY,
                interleave=_INTERLEAVE,
                socket_factory=_socket_factory,
            )
            conn = HttpConnection(self._ssl_ctx, target.host)
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
        if peer_pair is None or peer_pair not in attempt.vetted:
            # unreachable while the socket guard works; kept as an independent check
            conn.close()
            refusal = Refusal(FailureCode.REFUSED_ADDRESS, "connected peer was not vetted")
            attempt.refusal = attempt.refusal or refusal
            log.error("egress_unvetted_peer", peer=str(peer))
            raise refusal
        der = conn.tls.getpeercert(binary_form=True)
        now = loop.time()
        self._facts[conn] = ConnectionFacts(
            origin=origin,
            peer=peer_pair,
            peer_text=format_ip(peer_pair[0]),
            certificate=describe_certificate(der) if der else None,
            opened_at=now,
            last_used=now,
        )
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
        facts = self._facts.get(conn)
        if (
            self.closed
            or facts is None
            or not self.limits.enabled
            or not conn.reusable()
            or (not facts.recurring and not self._room_for_first())
            or not conn.park()
        ):
            conn.close()
            self._forget(conn)
            return
        origin = facts.origin
        self._by_origin.setdefault(origin, []).append(conn)
        self._idle[conn] = origin
        if not facts.recurring:
            self._idle_first[conn] = None
        now = asyncio.get_running_loop().time()
        while len(self._idle) > self.limits.max_idle:
            old = next(iter(self._idle))
            old_facts = self._facts.get(old)
            used = old_facts.last_used if old_facts is not None else 0.0
            if over_idle_bound(used, now, self.limits) == "released":
                old = conn
            self._drop_idle(old)
            old.close()
            self._forget(old)
            log.debug("egress_pooled_connection_closed", reason="max_idle")
        if self._sweeper is None and self._idle:
            self._schedule_sweep()

    def _room_for_first(self) -> bool:
        """Whether one more non-recurring connection may stay idle (``max_idle_first``)."""
        return len(self._idle_first) < self.limits.max_idle_first

    def _drop_idle(self, conn: HttpConnection) -> None:
        origin = self._idle.pop(conn, None)
        self._idle_first.pop(conn, None)
        if origin is None:
            return
        stack = self._by_origin.get(origin)
        if stack is not None:
            try:
                stack.remove(conn)
            except ValueError:
                pass
            if not stack:
                del self._by_origin[origin]

    def _forget(self, conn: HttpConnection) -> None:
        self._facts.pop(conn, None)

    def _died_idle(self, conn: HttpConnection) -> None:
        """An idle connection closed itself: a byte or an EOF arrived while it was idle."""
        facts = self._facts.get(conn)
        self._drop_idle(conn)
        self._forget(conn)
        if conn.stale:
            log.warning(
                "egress_pooled_connection_closed",
                reason="bytes_while_idle",
                peer=facts.peer_text if facts is not None else None,
                requests=facts.requests if facts is not None else None,
            )

    def _schedule_sweep(self) -> None:
        interval = max(0.05, min(self.limits.idle_s, self.limits.max_age_s) / 2)
        self._sweeper = asyncio.get_running_loop().call_later(interval, self._sweep)

    def _sweep(self) -> None:
        """Close idle connections past their idle or age bound (reuse would refuse them)."""
        self._sweeper = None
        now = asyncio.get_running_loop().time()
        limits = self.limits
        for conn in list(self._idle):
            facts = self._facts.get(conn)
            if (
                facts is None
                or now - facts.last_used > limits.idle_s
                or now - facts.opened_at >= limits.max_age_s
            ):
                self._drop_idle(conn)
                conn.close()
                self._forget(conn)
        if self._idle and not self.closed:
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
        conns = list(self._facts)
        self._idle.clear()
        self._idle_first.clear()
        self._by_origin.clear()
        self._facts.clear()
        for conn in conns:
            conn.close()
        if conns:
            await asyncio.sleep(0)  # let the transports run their close callbacks


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


class WireAdapter:
    """One :class:`Connector`; :meth:`send` moves one request's bytes over the connection it
    hands out (pooled or new) and reads the answer to its framed end."""

    def __init__(
        self,
        ssl_ctx: ssl.SSLContext,
        *,
        limits: PoolLimits,
        max_connections: int,
        connect_timeout_s: float,
        max_response_bytes: int,
        allow_pairs: frozenset[tuple[IPAddress, int]] = frozenset(),
    ) -> None:
        self._ssl = ssl_ctx
        self.allow_pairs = allow_pairs
        self.limits = limits
        self.max_connections = max_connections
        self.max_response_bytes = max_response_bytes
        self._connect_timeout_s = connect_timeout_s
        self._targets: BoundedMemo[str, _Target] = BoundedMemo(_TARGET_MEMO)
        self._slots: asyncio.Semaphore | None = None
        self.connector: Connector | None = None

    def start(self) -> None:
        if self.connector is not None:
            return
        self.connector = Connector(
            limits=self.limits,
            ssl_ctx=self._ssl,
            connect_timeout_s=self._connect_timeout_s,
            allow_pairs=self.allow_pairs,
        )
        self._slots = asyncio.Semaphore(self.max_connections)

    async def close(self) -> None:
        connector, self.connector = self.connector, None
        if connector is not None:
            await connector.close()

    def _target(self, url: str) -> _Target:
        target = self._targets.get(url)
        if target is None:
            target = _Target(url)
            self._targets.put(url, target)
        return target

    async def send(self, attempt: Attempt, body: bytes, headers: list[tuple[str, str]]) -> Wire:
        """POST under ``attempt`` (set as the current attempt around the request)."""
        assert self.connector is not None and self._slots is not None
        token = CURRENT.set(attempt)
        try:
            wire = await self._post(attempt, body, headers)
        finally:
            CURRENT.reset(token)
        if attempt.facts is not None:
            attempt.facts.last_used = asyncio.get_running_loop().time()
        return wire

    async def _post(self, attempt: Attempt, body: bytes, headers: list[tuple[str, str]]) -> Wire:
        wire = Wire()
        loop = asyncio.get_running_loop()
        slots = self._slots
        assert slots is not None
        # the deadline covers waiting for a slot, connecting, writing and reading the whole
        # body: the time left until the attempt's deadline (DNS already took its share)
        try:
            async with asyncio.timeout_at(max(attempt.deadline, loop.time() + 0.001)):
                async with slots:
                    await self._exchange(attempt, headers, body, wire)
        except Exception as exc:  # classified into a stable code below
            wire.code, wire.detail = classify_exception(attempt, exc, wire.head_at is not None)
            return wire
        if wire.location is not None and wire.code is None:
            wire.code = FailureCode.REDIRECT
            wire.detail = f"redirect to {wire.location!r}"
        return wire

    async def _exchange(
        self, attempt: Attempt, headers: list[tuple[str, str]], body: bytes, wire: Wire
    ) -> None:
        connector = self.connector
        assert connector is not None
        target = self._target(attempt.endpoint.url)
        conn = await connector.acquire(target, attempt)
        response: Response | None = None
        try:
            # an invalid field fails here, connected and before a byte is written
            head = request_head(target, headers, len(body), close=not self.limits.enabled)
            response = conn.start(self.max_response_bytes)
            attempt.headers_sent = True  # from here on the request may have started
            conn.write(head + body)  # one TLS record, one send for a webhook body
            while conn.paused and not conn.finished and not conn.lost:
                await conn.wait()
            if not conn.paused and not conn.lost:
                attempt.body_sent = attempt.body_len
                attempt.written_at = attempt.now()
            while not conn.finished:
                await conn.wait()
            if response.head_at is not None:
                wire.head_at = response.head_at - attempt.t0
            if response.status is not None:
                wire.status = status = response.status
                wire.headers = tuple((_text(n), _text(v)) for n, v in response.headers)
                if 300 <= status < 400:
                    wire.location = next(
                        (v for n, v in wire.headers if n.lower() == "location"), ""
                    )
            if response.too_large is not None:
                wire.chunks = response.chunks
                wire.code = FailureCode.RESPONSE_TOO_LARGE
                wire.detail = response.too_large
                return
            if response.error is not None:
                raise response.error
            wire.chunks = response.chunks
        finally:
            if response is not None:
                wire.received = response.received
                wire.truncated = response.truncated
            conn.end()
            connector.release(conn)


def classify_exception(attempt: Attempt, exc: Exception, got_head: bool) -> tuple[FailureCode, str]:
    """A stable code for an exception raised while sending (pure over the attempt's facts)."""
    connected = attempt.connected_at is not None
    if not connected:
        refusal = attempt.refusal or _find_refusal(exc)
        if refusal is not None:
            return refusal.code, refusal.detail
    text = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, ssl.SSLError | ssl.CertificateError):
        return FailureCode.TLS_ERROR, text
    if isinstance(exc, TimeoutError):
        if not connected:
            return FailureCode.CONNECT_TIMEOUT, text
        return FailureCode.RESPONSE_TIMEOUT, text
    if not connected:
        return FailureCode.CONNECT_FAILED, text
    if isinstance(exc, ResponseError):
        return FailureCode.PROTOCOL_ERROR, text
    return FailureCode.CONNECTION_RESET, text


def _find_refusal(exc: BaseException) -> Refusal | None:
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if isinstance(cur, Refusal):
            return cur
        if isinstance(cur, BaseExceptionGroup):
            for inner in cur.exceptions:
                found = _find_refusal(inner)
                if found is not None:
                    return found
        cur = cur.__cause__ or cur.__context__
    return None
