"""Fixtures for the egress tests: a socket-layer guard, trustme certificates, a real local DNS
server (dnslib, UDP and TCP on one port) and small TLS HTTP servers on loopback.

SAFETY: the autouse ``socket_guard`` makes it impossible for any test here to send a packet
outside loopback, whatever the code under test does: every TCP connect and every UDP send to a
non-loopback address raises and is recorded (and fails the test at teardown).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import ssl
import struct
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import trustme
from dnslib import AAAA, CNAME, QTYPE, RCODE, RR, SOA, A, DNSRecord

from hookproof.engine.egress import EgressPolicy, EgressTransport

LOOPBACK_V4 = ipaddress.ip_network("127.0.0.0/8")
LOOPBACK_V6 = ipaddress.ip_address("::1")


def _is_loopback(host: Any) -> bool:
    try:
        addr = ipaddress.ip_address(str(host).split("%")[0])
    except ValueError:
        return False
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    if isinstance(addr, ipaddress.IPv4Address):
        return addr in LOOPBACK_V4
    return addr == LOOPBACK_V6


@dataclass
class SocketGuard:
    """Records every connect attempt; refuses (and remembers) any non-loopback target."""

    attempts: list[tuple[str, int]] = field(default_factory=list)
    refused: list[tuple[str, int]] = field(default_factory=list)

    def check(self, address: Any, kind: str) -> None:
        if not isinstance(address, tuple) or not address:
            return  # AF_UNIX paths and the like: not network egress
        host, port = str(address[0]), int(address[1]) if len(address) > 1 else 0
        if kind == "connect":
            self.attempts.append((host, port))
        if not _is_loopback(host):
            self.refused.append((host, port))
            raise PermissionError(f"test socket guard: {kind} to non-loopback {host}:{port}")

    def connects_to(self, port: int) -> int:
        return sum(1 for _, p in self.attempts if p == port)


@pytest.fixture(autouse=True)
def socket_guard(monkeypatch: pytest.MonkeyPatch) -> Iterator[SocketGuard]:
    guard = SocketGuard()
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_sendto = socket.socket.sendto

    def connect(self: socket.socket, address: Any) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            guard.check(address, "connect")
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            guard.check(address, "connect")
        return real_connect_ex(self, address)

    def sendto(self: socket.socket, data: Any, *args: Any) -> int:
        address = args[-1]
        if self.family in (socket.AF_INET, socket.AF_INET6):
            guard.check(address, "sendto")
        return real_sendto(self, data, *args)

    from asyncio import selector_events

    real_sock_connect = selector_events.BaseSelectorEventLoop.sock_connect

    async def sock_connect(self: Any, sock: socket.socket, address: Any) -> None:
        # the inner sock.connect is guarded too; this also catches non-socket.socket objects
        if sock.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback(address[0]):
            guard.check(address, "connect")
        return await real_sock_connect(self, sock, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    monkeypatch.setattr(socket.socket, "sendto", sendto)
    monkeypatch.setattr(selector_events.BaseSelectorEventLoop, "sock_connect", sock_connect)
    yield guard
    assert not guard.refused, f"code under test tried to reach non-loopback: {guard.refused}"


# -- certificates ----------------------------------------------------------------------

TEST_NAMES = ("hooks.test", "hooks-b.test", "public.test", "*.hooks.test", "127.0.0.1", "::1")


@dataclass
class Pki:
    ca: trustme.CA
    cert: trustme.LeafCert
    ca_file: Path

    def server_context(self, cert: trustme.LeafCert | None = None) -> ssl.SSLContext:
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        (cert or self.cert).configure_cert(ctx)
        return ctx


@pytest.fixture(scope="session")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    ca = trustme.CA()
    cert = ca.issue_cert(*TEST_NAMES)
    ca_file = tmp_path_factory.mktemp("pki") / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    return Pki(ca, cert, ca_file)


# -- DNS -------------------------------------------------------------------------------


class DnsServer:
    """A real authoritative-style DNS server on 127.0.0.1 (UDP and TCP, same port).

    ``records`` maps a lowercase name to a list of IP address strings, or to
    ``"cname:target"``; a test changes it at will. Unknown names get NXDOMAIN. With
    ``silent`` set, queries are swallowed (a resolver timeout).
    """

    def __init__(self) -> None:
        self.records: dict[str, list[str] | str] = {}
        self.queries: list[tuple[str, str, str]] = []
        self.silent = False
        self.servfail: set[str] = set()  # query types answered with SERVFAIL
        self.truncate_udp = False
        self.ttl = 0  # of address records (CNAMEs and negative answers stay at 0)
        self.port = 0
        self._udp: asyncio.DatagramTransport | None = None
        self._tcp: asyncio.Server | None = None

    def answer(self, data: bytes, proto: str) -> bytes | None:
        request = DNSRecord.parse(data)
        qname = str(request.q.qname).rstrip(".").lower()
        qtype = QTYPE[request.q.qtype]
        self.queries.append((qname, str(qtype), proto))
        if self.silent:
            return None
        reply = request.reply()
        if str(qtype) in self.servfail:
            reply.header.rcode = RCODE.SERVFAIL
            return reply.pack()
        if proto == "udp" and self.truncate_udp:
            reply.header.tc = 1  # "answer too big": the resolver must retry over TCP
            return reply.pack()
        name = qname
        for _ in range(8):
            value = self.records.get(name)
            if isinstance(value, str) and value.startswith("cname:"):
                target = value.removeprefix("cname:")
                reply.add_answer(RR(name, QTYPE.CNAME, rdata=CNAME(target), ttl=0))
                name = target
                continue
            break
        value = self.records.get(name)
        if value is None or isinstance(value, str):
            reply.header.rcode = RCODE.NXDOMAIN
            reply.add_auth(self._soa(name))
            return reply.pack()
        for text in value:
            ip = ipaddress.ip_address(text)
            if qtype == "A" and ip.version == 4:
                reply.add_answer(RR(name, QTYPE.A, rdata=A(text), ttl=self.ttl))
            elif qtype == "AAAA" and ip.version == 6:
                reply.add_answer(RR(name, QTYPE.AAAA, rdata=AAAA(ip.exploded), ttl=self.ttl))
        if not reply.rr:
            reply.add_auth(self._soa(name))  # NODATA: negative TTL 0, nothing may be cached
        return reply.pack()

    @staticmethod
    def _soa(name: str) -> RR:
        zone = name.split(".", 1)[-1] or name
        return RR(
            zone, QTYPE.SOA, ttl=0, rdata=SOA("ns." + zone, "hostmaster." + zone, (1, 0, 0, 0, 0))
        )

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        server = self

        class Udp(asyncio.DatagramProtocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                self.transport = transport

            def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
                out = server.answer(data, "udp")
                if out is not None:
                    self.transport.sendto(out, addr)  # type: ignore[attr-defined]

        async def tcp(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                while True:
                    (size,) = struct.unpack("!H", await reader.readexactly(2))
                    out = server.answer(await reader.readexactly(size), "tcp")
                    if out is None:
                        continue
                    writer.write(struct.pack("!H", len(out)) + out)
                    await writer.drain()
            except (asyncio.IncompleteReadError, ConnectionError):
                pass
            finally:
                writer.close()

        for _ in range(20):
            udp, _proto = await loop.create_datagram_endpoint(Udp, local_addr=("127.0.0.1", 0))
            port = udp.get_extra_info("sockname")[1]
            try:
                self._tcp = await asyncio.start_server(tcp, "127.0.0.1", port)
            except OSError:
                udp.close()
                continue
            self._udp, self.port = udp, port
            return
        raise RuntimeError("could not bind UDP and TCP on one port")

    async def close(self) -> None:
        if self._udp is not None:
            self._udp.close()
        if self._tcp is not None:
            self._tcp.close()
            await self._tcp.wait_closed()


@pytest.fixture
async def dns() -> AsyncIterator[DnsServer]:
    server = DnsServer()
    await server.start()
    try:
        yield server
    finally:
        await server.close()


# -- TLS HTTP servers ------------------------------------------------------------------


@dataclass
class Request:
    method: str
    target: str
    headers: dict[str, str]
    body: bytes
    connection: int = 0  # which connection (1, 2, ...) carried it


Handler = Callable[[Request, asyncio.StreamWriter], Awaitable[None]]


def respond(
    status: int = 200,
    body: bytes = b"ok",
    headers: dict[str, str] | None = None,
    *,
    chunked: bool = False,
    delay: float = 0.0,
) -> Handler:
    """A handler writing one complete HTTP/1.1 response."""

    async def handler(_request: Request, writer: asyncio.StreamWriter) -> None:
        if delay:
            await asyncio.sleep(delay)
        lines = [f"HTTP/1.1 {status} X"]
        extra = dict(headers or {})
        if chunked:
            extra["Transfer-Encoding"] = "chunked"
        else:
            extra["Content-Length"] = str(len(body))
        extra.setdefault("Connection", "close")
        lines += [f"{k}: {v}" for k, v in extra.items()]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        if chunked:
            for i in range(0, len(body), 4096):
                part = body[i : i + 4096]
                writer.write(f"{len(part):x}\r\n".encode() + part + b"\r\n")
            writer.write(b"0\r\n\r\n")
        else:
            writer.write(body)
        await writer.drain()

    return handler


async def close_after_request(_request: Request, _writer: asyncio.StreamWriter) -> None:
    """Read the request, answer nothing, close (the connection-reset case)."""


class TlsHttpServer:
    """A minimal HTTPS/1.1 server on loopback that counts connections and records requests."""

    def __init__(
        self,
        ctx: ssl.SSLContext,
        handler: Handler,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        keep_alive: bool = False,
    ) -> None:
        self.ctx = ctx
        self.handler = handler
        self.host = host
        self.keep_alive = keep_alive  # serve requests on a connection until the client closes
        self.connections = 0
        self.open_connections = 0
        self.requests: list[Request] = []
        self.port = port
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> TlsHttpServer:
        self._server = await asyncio.start_server(
            self._serve, self.host, self.port, ssl=self.ctx, ssl_handshake_timeout=5
        )
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        number = self.connections
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self.open_connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, target, _ = lines[0].split(" ", 2)
                headers: dict[str, str] = {}
                for line in lines[1:]:
                    if line:
                        k, _, v = line.partition(":")
                        headers[k.strip().lower()] = v.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                request = Request(method, target, headers, body, number)
                self.requests.append(request)
                await self.handler(request, writer)
                if not self.keep_alive:
                    break
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
            pass
        finally:
            self.open_connections -= 1
            self._tasks.discard(task)
            writer.close()
            try:
                await writer.wait_closed()
            except (ConnectionError, ssl.SSLError):
                pass

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            await self._server.wait_closed()


@pytest.fixture
async def make_server(pki: Pki) -> AsyncIterator[Callable[..., Awaitable[TlsHttpServer]]]:
    servers: list[TlsHttpServer] = []

    async def factory(
        handler: Handler | None = None,
        *,
        cert: trustme.LeafCert | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        keep_alive: bool = False,
    ) -> TlsHttpServer:
        if handler is None:
            handler = respond(headers={"Connection": "keep-alive"}) if keep_alive else respond()
        server = TlsHttpServer(pki.server_context(cert), handler, host, port, keep_alive=keep_alive)
        servers.append(server)
        return await server.start()

    try:
        yield factory
    finally:
        for server in servers:
            await server.close()


@pytest.fixture
async def make_transport(pki: Pki, dns: DnsServer) -> AsyncIterator[Callable[..., EgressTransport]]:
    """Transports always pointed at the local DNS server (never the system resolver)."""
    transports: list[EgressTransport] = []

    def factory(
        allow: tuple[tuple[str, int], ...] = (), *, ca: bool = True, **kwargs: Any
    ) -> EgressTransport:
        kwargs.setdefault("connect_timeout_s", 2.0)
        kwargs.setdefault("total_timeout_s", 3.0)
        kwargs.setdefault("dns_timeout_s", 0.5)
        kwargs.setdefault("dns_tries", 1)
        policy = EgressPolicy(
            allow_pairs=frozenset(allow),
            dns_servers=(("127.0.0.1", dns.port),),
            ca_file=str(pki.ca_file) if ca else None,
            **kwargs,
        )
        transport = EgressTransport(policy)
        transports.append(transport)
        return transport

    try:
        yield factory
    finally:
        for transport in transports:
            await transport.close()
