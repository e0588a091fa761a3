"""How bytes move: the aiohttp pieces of the egress transport behind one adapter.

:class:`AiohttpAdapter` owns one aiohttp connector (connections, the pool, TLS) which

- resolves through :class:`VettedResolver`, which never resolves: it hands aiohttp only the
  addresses vetted for the current request (a context variable carries the per-request
  :class:`Attempt`, so concurrent requests never see each other's vetting);
- creates sockets through :func:`guarded_socket`, which refuses any sockaddr not vetted for
  this request: the last line before a connect;
- (:class:`EgressConnector`) checks every connection it hands out: a new one must have a
  vetted peer (its certificate is described once, here); a pooled one must pass the pinned
  pool's rule (:func:`.pool.reuse_refusal`) or it is closed and never used.

Over the connection it is handed, the adapter writes the request head (:func:`request_head`)
and body itself and reads the answer with aiohttp's own response parser (the connection's
protocol: the limits on the status line, field sizes and field count of a ``ClientSession``),
recording when the request may have started and when it was written.

Nothing here decides policy: the transport vets, the adapter only refuses what was not vetted.
"""

from __future__ import annotations

import asyncio
import asyncio.sslproto
import contextvars
import errno
import ipaddress
import re
import socket
import ssl
import weakref
from collections import OrderedDict, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import aiohttp
import structlog
import yarl
from aiohappyeyeballs import AddrInfoType
from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.client_reqrep import ConnectionKey
from aiohttp.http_exceptions import HttpProcessingError

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

__all__ = [
    "AiohttpAdapter",
    "Attempt",
    "EgressConnector",
    "Refusal",
    "VettedResolver",
    "Wire",
    "guarded_socket",
]

log = structlog.get_logger("hookproof.egress")

_READ_CHUNK: Final = 16 * 1024

#: asyncio's TLS protocol allocates (and zero-fills) a 256 KiB read buffer per connection, so
#: each pooled connection would hold ~320 KiB. A 4 KiB buffer (a webhook answer is small; a
#: bigger one is read in more steps) brings a pooled TLS connection to ~43 KiB (measured with
#: 1,000 connections: 55 KiB with 16 KiB, 8 KiB without TLS). Process-wide: every asyncio
#: TLS connection of the engine reads in 4 KiB steps.
asyncio.sslproto.SSLProtocol.max_size = 4 * 1024


class Refusal(OSError):
    """Raised inside aiohttp by our resolver, socket guard or connector; carries a code."""

    def __init__(self, code: FailureCode, detail: str) -> None:
        super().__init__(errno.EACCES, detail)
        self.code = code
        self.detail = detail


@dataclass(slots=True)
class Attempt:
    """Per-request state, reachable from the connector through a context variable."""

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


class VettedResolver(AbstractResolver):
    """Hands aiohttp only the addresses vetted for the current request; never resolves."""

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

    async def close(self) -> None:
        return None


def guarded_socket(addr_info: AddrInfoType) -> socket.socket:
    """``socket_factory`` for aiohappyeyeballs: the last line before a connect."""
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


def _origin(req: aiohttp.ClientRequest, ssl_ctx: ssl.SSLContext) -> Origin:
    url = req.url
    return (url.scheme, url.raw_host or "", url.port or 0, id(ssl_ctx))


class EgressConnector(aiohttp.TCPConnector):
    """Applies the pinned pool's rule to every connection handed to a request."""

    def __init__(
        self,
        *,
        limits: PoolLimits,
        ssl_ctx: ssl.SSLContext,
        allow_pairs: frozenset[tuple[IPAddress, int]] = frozenset(),
        **kwargs: Any,
    ) -> None:
        if limits.enabled:
            kwargs.update(force_close=False, keepalive_timeout=limits.idle_s)
        else:
            kwargs.update(force_close=True)
        super().__init__(ssl=ssl_ctx, **kwargs)
        self.limits = limits
        self.allow_pairs = allow_pairs
        self._ssl_ctx = ssl_ctx
        self._facts: weakref.WeakKeyDictionary[Any, ConnectionFacts] = weakref.WeakKeyDictionary()
        self.opened = 0
        self.reused = 0
        self._idle: OrderedDict[Any, Any] = OrderedDict()  # pooled protocol -> its key
        # the pooled ones whose last request was the first to its origin (not recurring)
        self._idle_first: dict[Any, None] = {}
        # origin -> when its last request started, for the origins of the last ``idle_s``
        self._last_request: dict[Origin, float] = {}

    def _room_for_first(self) -> bool:
        """Whether one more non-recurring connection may stay idle (``max_idle_first``);
        forgets the oldest ones aiohttp closed meanwhile (idle timeout)."""
        first = self._idle_first
        while len(first) >= self.limits.max_idle_first:
            oldest = next(iter(first))
            if oldest in self._idle and oldest.is_connected():
                return False
            del first[oldest]
        return True

    def _release(self, key: Any, protocol: Any, *, should_close: bool = False) -> None:
        """aiohttp puts a finished connection back in its pool here; keep at most
        ``limits.max_idle`` of them (:func:`.pool.over_idle_bound` chooses which one goes),
        of which at most ``limits.max_idle_first`` not recurring (the others are closed)."""
        facts = self._facts.get(protocol)
        first = facts is not None and not facts.recurring
        if first and not should_close and not self._room_for_first():
            should_close = True
        super()._release(key, protocol, should_close=should_close)
        conns = self._conns.get(key)
        if self._closed or not conns or conns[-1][0] is not protocol:
            return  # closed, not pooled
        self._idle[protocol] = key
        self._idle.move_to_end(protocol)
        if first:
            self._idle_first[protocol] = None
        while len(self._idle) > self.limits.max_idle:
            old, old_key = next(iter(self._idle.items()))
            facts = self._facts.get(old)
            used = facts.last_used if facts is not None else 0.0
            now = asyncio.get_running_loop().time()
            if over_idle_bound(used, now, self.limits) == "released":
                old, old_key = protocol, key
            del self._idle[old]
            self._idle_first.pop(old, None)
            pooled = self._conns.get(old_key)
            if not pooled or all(p is not old for p, _ in pooled):
                continue  # already taken or closed by aiohttp
            kept = deque((p, t) for p, t in pooled if p is not old)
            if kept:
                self._conns[old_key] = kept
            else:
                del self._conns[old_key]
            old.close()
            log.debug("egress_pooled_connection_closed", reason="max_idle")

    async def connect(
        self,
        req: aiohttp.ClientRequest,
        traces: list[Any],
        timeout: aiohttp.ClientTimeout,  # noqa: ASYNC109 - aiohttp's signature
    ) -> Any:
        attempt = CURRENT.get()
        origin = _origin(req, self._ssl_ctx)
        recurring = self._note_request(origin, asyncio.get_running_loop().time())
        while True:
            conn = await super().connect(req, traces, timeout)
            proto = conn.protocol
            loop_now = asyncio.get_running_loop().time()
            facts = self._facts.get(proto) if proto is not None else None
            self._idle.pop(proto, None)
            self._idle_first.pop(proto, None)
            if facts is None:
                facts = self._opened(conn, attempt, origin, loop_now)
                self.opened += 1
                reused = False
            else:
                vetted = attempt.vetted if attempt is not None else frozenset()
                reason = reuse_refusal(facts, origin, vetted, loop_now, self.limits)
                if reason is not None or attempt is None:
                    log.info(
                        "egress_pooled_connection_closed",
                        reason=reason or "no_attempt",
                        peer=facts.peer_text,
                        requests=facts.requests,
                    )
                    conn.close()
                    continue
                self.reused += 1
                reused = True
            assert attempt is not None
            facts.requests += 1
            facts.last_used = loop_now
            facts.recurring = recurring
            attempt.facts = facts
            attempt.reused = reused
            attempt.connected_at = attempt.now()
            attempt.peer = (facts.peer_text, facts.peer[1])
            attempt.certificate = facts.certificate
            if attempt.body_len == 0:  # no body write to report it: the headers follow now
                attempt.headers_sent = True
                attempt.written_at = attempt.now()
            return conn

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

    def _opened(
        self, conn: Any, attempt: Attempt | None, origin: Origin, now: float
    ) -> ConnectionFacts:
        """A new connection: its peer must be vetted; its certificate is described once."""
        transport = conn.transport
        peer = transport.get_extra_info("peername") if transport is not None else None
        try:
            peer_pair = (ipaddress.ip_address(str(peer[0])), int(peer[1])) if peer else None
        except ValueError:
            peer_pair = None
        if attempt is None or peer_pair is None or peer_pair not in attempt.vetted:
            # unreachable while the socket guard works; kept as an independent check
            conn.close()
            refusal = Refusal(FailureCode.REFUSED_ADDRESS, "connected peer was not vetted")
            if attempt is not None:
                attempt.refusal = attempt.refusal or refusal
            log.error("egress_unvetted_peer", peer=str(peer))
            raise refusal
        assert transport is not None
        sslobj = transport.get_extra_info("ssl_object")
        der = sslobj.getpeercert(binary_form=True) if sslobj is not None else None
        facts = ConnectionFacts(
            origin=origin,
            peer=peer_pair,
            peer_text=format_ip(peer_pair[0]),
            certificate=describe_certificate(der) if der else None,
            opened_at=now,
            last_used=now,
        )
        self._facts[conn.protocol] = facts
        if peer_pair in self.allow_pairs:
            log.warning(
                "egress_allowance_used",
                address=facts.peer_text,
                port=peer_pair[1],
                host=attempt.endpoint.host,
            )
        return facts


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


class _Target:
    """One endpoint URL as the connector and the request line need it, computed once.

    The connector reads these attributes of a request for a direct connection (aiohttp's
    ``ClientRequest`` has the same names): the pool key (``ssl=True``: the connector's own
    verifying context, no proxy, SNI from the URL host), the host and port it hands the
    vetting resolver. ``head`` is the request line and ``Host`` field, as aiohttp writes them.
    """

    __slots__ = ("connection_key", "head", "host", "port", "url")

    proxy: Final = None
    proxy_auth: Final = None
    proxy_headers: Final = None
    server_hostname: Final = None
    ssl: Final = True

    def __init__(self, url: str) -> None:
        self.url = yarl.URL(url, encoded=True)
        host, port = self.url.raw_host, self.url.port
        if not host or port is None or self.url.scheme != "https":
            raise ValueError("an absolute https URL is needed")
        self.host: str = host
        self.port: int = port
        self.connection_key = ConnectionKey(host, port, True, True, None, None, None)
        host_field = self.url.host_port_subcomponent
        target = self.url.raw_path_qs
        # the request line and Host are written as given: no space or control character may
        # split them (normalise_endpoint refuses such URLs already; this holds on its own)
        if _UNSAFE_IN_HEAD.search(target) or _UNSAFE_IN_HEAD.search(host_field or ""):
            raise ValueError("the URL holds a space or a control character")
        self.head = f"POST {target} HTTP/1.1\r\nHost: {host_field}\r\n".encode("ascii")

    def is_ssl(self) -> bool:
        return True


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


#: aiohttp's ClientSession defaults for the response parser.
_MAX_LINE: Final = 8190
_MAX_FIELD: Final = 8190
_MAX_HEADERS: Final = 128
_READ_BUFSIZE: Final = 2**16
#: URL targets kept per worker (~1 KiB each): as many as the poster's subscription states
#: (engine/features.py), so a fan-out to 10,000 sites does not keep one per URL.
_TARGET_MEMO: Final = 2_048


class AiohttpAdapter:
    """One guarded connector; :meth:`send` moves one request's bytes over a connection it
    hands out (pooled or new), writing the request head itself and reading the answer with
    aiohttp's response parser (the connection's own protocol): a ``ClientSession`` request
    (its request object, header multidicts, payload, writer and response objects) cost
    ~0.15 ms of CPU per request, most of a delivery's transport share."""

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
        self._timeout = aiohttp.ClientTimeout(
            connect=connect_timeout_s, sock_connect=connect_timeout_s
        )
        self._targets: BoundedMemo[str, _Target] = BoundedMemo(_TARGET_MEMO)
        self.connector: EgressConnector | None = None

    def start(self) -> None:
        if self.connector is not None:
            return
        self.connector = EgressConnector(
            limits=self.limits,
            ssl_ctx=self._ssl,
            allow_pairs=self.allow_pairs,
            resolver=VettedResolver(),
            use_dns_cache=False,
            limit=self.max_connections,
            socket_factory=guarded_socket,
        )

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
        assert self.connector is not None
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
        # the deadline covers connecting, writing and reading the whole body: the time left
        # until the attempt's deadline (DNS already took its share)
        try:
            async with asyncio.timeout_at(max(attempt.deadline, loop.time() + 0.001)):
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
        conn = await connector.connect(target, [], self._timeout)  # type: ignore[arg-type]
        kept = False
        try:
            # an invalid field fails here, connected and before a byte is written, as in aiohttp
            head = request_head(target, headers, len(body), close=not self.limits.enabled)
            proto = conn.protocol
            assert proto is not None
            proto.set_response_params(
                read_until_eof=True,
                auto_decompress=False,
                read_bufsize=_READ_BUFSIZE,
                timeout_ceil_threshold=connector._timeout_ceil_threshold,
                max_line_size=_MAX_LINE,
                max_field_size=_MAX_FIELD,
                max_headers=_MAX_HEADERS,
            )
            transport = proto.transport
            attempt.headers_sent = True  # from here on the request may have started
            if transport is None or transport.is_closing():
                raise aiohttp.ClientConnectionResetError("Cannot write to closing transport")
            transport.write(head + body)  # one TLS record, one send for a webhook body
            if proto.writing_paused:
                await proto._drain_helper()
            attempt.body_sent = attempt.body_len
            attempt.written_at = attempt.now()
            while True:
                try:
                    message, payload = await proto.read()
                except HttpProcessingError as exc:
                    raise _BadResponse(f"{type(exc).__name__}: {exc}") from exc
                if message.code < 100 or message.code > 199 or message.code == 101:
                    break
            wire.head_at = attempt.now()
            wire.status = status = message.code
            resp_headers = message.headers
            wire.headers = tuple(resp_headers.items())
            if 300 <= status < 400:
                wire.location = resp_headers.get("Location", "")
            bound = self.max_response_bytes
            declared = resp_headers.get("Content-Length")
            if declared is not None and declared.isdigit() and int(declared) > bound:
                wire.code = FailureCode.RESPONSE_TOO_LARGE
                wire.detail = f"Content-Length {declared} over bound"
                return
            size = 0
            while True:
                chunk = await payload.read(_READ_CHUNK)
                if not chunk:
                    break
                size += len(chunk)
                if size > bound:
                    keep = bound - (size - len(chunk))
                    wire.chunks.append(chunk[: max(keep, 0)])
                    wire.code = FailureCode.RESPONSE_TOO_LARGE
                    wire.detail = f"body over {bound} bytes"
                    return
                wire.chunks.append(chunk)
            kept = payload.is_eof()
        finally:
            if kept:
                conn.release()  # back to the pool unless the answer said close
            else:
                conn.close()


class _BadResponse(Exception):
    """The answer's head was not valid HTTP/1.1 (aiohttp's parser refused it)."""


def classify_exception(attempt: Attempt, exc: Exception, got_head: bool) -> tuple[FailureCode, str]:
    """A stable code for an exception raised while sending (pure over the attempt's facts)."""
    connected = attempt.connected_at is not None
    if not connected:
        refusal = attempt.refusal or _find_refusal(exc)
        if refusal is not None:
            return refusal.code, refusal.detail
    text = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, aiohttp.ClientConnectorDNSError):
        return FailureCode.DNS_FAILURE, text
    if isinstance(exc, aiohttp.ClientSSLError | ssl.SSLError):
        return FailureCode.TLS_ERROR, text
    if isinstance(exc, TimeoutError):
        if not connected:
            return FailureCode.CONNECT_TIMEOUT, text
        return FailureCode.RESPONSE_TIMEOUT, text
    if isinstance(exc, aiohttp.ClientConnectorError):
        return FailureCode.CONNECT_FAILED, text
    if not connected:
        return FailureCode.CONNECT_FAILED, text
    if isinstance(exc, aiohttp.ClientResponseError | _BadResponse) and not got_head:
        return FailureCode.PROTOCOL_ERROR, text
    if isinstance(exc, aiohttp.ClientPayloadError) and not isinstance(
        exc.__cause__, ConnectionError
    ):
        return FailureCode.PROTOCOL_ERROR, text
    return FailureCode.CONNECTION_RESET, text


def _find_refusal(exc: BaseException) -> Refusal | None:
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if isinstance(cur, Refusal):
            return cur
        os_error = getattr(cur, "os_error", None)
        if isinstance(os_error, Refusal):
            return os_error
        cur = cur.__cause__ or cur.__context__
    return None
