"""The operator's forward proxy (``HOOKPROOF_EGRESS_PROXY=http://host:port``, DESIGN.md
section 14): a tunnel to one vetted address, for a fixed source address receivers can
allow-list.

The engine resolves and vets the endpoint itself (:mod:`.policy`), then asks the proxy for
``CONNECT <vetted address>:<port>``: an address, never the host name, so the proxy cannot
resolve it elsewhere. TLS then runs end to end through the tunnel with SNI and verification on
the host name (:mod:`.connection`), exactly as without a proxy. A proxy that cannot be reached,
refuses the tunnel or answers anything but a ``2xx`` to the CONNECT is
``egress_proxy_failed``, nothing sent: the endpoint is not at fault.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass
from typing import Final

import yarl

from .addresses import IPAddress
from .errors import Refusal
from .failures import FailureCode

__all__ = ["EgressProxy", "connect_line", "open_tunnel", "parse_proxy"]

#: The proxy's answer head is read up to this many bytes.
MAX_PROXY_HEAD: Final = 8192


@dataclass(frozen=True, slots=True)
class EgressProxy:
    """The proxy's host (a name or an IP literal) and port; ``text``: ``host:port``."""

    host: str
    port: int

    @property
    def text(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


def parse_proxy(url: str) -> EgressProxy:
    """``http://host:port`` (no user, path, query or fragment), else ValueError."""
    parsed = yarl.URL(url)
    if parsed.scheme != "http" or not parsed.raw_host or parsed.explicit_port is None:
        raise ValueError("HOOKPROOF_EGRESS_PROXY must be http://host:port")
    if parsed.user or parsed.password or parsed.raw_path not in ("", "/") or parsed.query_string:
        raise ValueError("HOOKPROOF_EGRESS_PROXY takes no user, path or query")
    if parsed.fragment:
        raise ValueError("HOOKPROOF_EGRESS_PROXY takes no fragment")
    return EgressProxy(parsed.raw_host, parsed.explicit_port)


def connect_line(address: IPAddress, port: int) -> bytes:
    """The CONNECT request for one vetted address (an address, never a host name)."""
    authority = f"[{address}]:{port}" if address.version == 6 else f"{address}:{port}"
    return f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n".encode("ascii")


def _failed(detail: str) -> Refusal:
    return Refusal(FailureCode.PROXY_FAILED, detail)


async def _proxy_socket(proxy: EgressProxy) -> socket.socket:
    loop = asyncio.get_running_loop()
    try:
        literal: IPAddress | None = ipaddress.ip_address(proxy.host)
    except ValueError:
        literal = None
    if literal is not None:
        fam = socket.AF_INET6 if literal.version == 6 else socket.AF_INET
        infos = [(fam, str(literal))]
    else:
        try:
            found = await loop.getaddrinfo(proxy.host, proxy.port, type=socket.SOCK_STREAM)
        except OSError as exc:
            raise _failed(f"the proxy's name did not resolve: {exc}") from exc
        infos = [(fam, str(sockaddr[0])) for fam, _, _, _, sockaddr in found]
    last: OSError | None = None
    for fam, host in infos:
        sock = socket.socket(fam, socket.SOCK_STREAM)
        sock.setblocking(False)
        try:
            await loop.sock_connect(sock, (host, proxy.port))
            return sock
        except OSError as exc:
            sock.close()
            last = exc
    raise _failed(f"the proxy did not accept a connection: {last}") from last


async def open_tunnel(
    proxy: EgressProxy, address: IPAddress, port: int, *, server_first: bool = False
) -> socket.socket:
    """A socket tunnelled to ``address``:``port`` through ``proxy`` (the caller bounds the
    time); raises :class:`Refusal` ``egress_proxy_failed``. ``server_first``: the peer speaks
    before the client (plain NATS's ``INFO``), so the answer is read a byte at a time and
    what follows its blank line is left in the socket for the peer's protocol."""
    loop = asyncio.get_running_loop()
    sock = await _proxy_socket(proxy)
    try:
        await loop.sock_sendall(sock, connect_line(address, port))
        head = b""
        while b"\r\n\r\n" not in head:
            # the answer ends at its blank line and nothing follows it: the server's TLS
            # speaks only after our ClientHello
            chunk = await loop.sock_recv(sock, 1 if server_first else MAX_PROXY_HEAD - len(head))
            if not chunk:
                raise _failed("the proxy closed the connection before answering the CONNECT")
            head += chunk
            if len(head) >= MAX_PROXY_HEAD and b"\r\n\r\n" not in head:
                raise _failed("the proxy's answer to the CONNECT is too long")
        end = head.index(b"\r\n\r\n") + 4
        if end != len(head):
            raise _failed("the proxy sent bytes after its answer to the CONNECT")
        status_line = head.split(b"\r\n", 1)[0].decode("latin-1")
        parts = status_line.split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
            raise _failed("the proxy's answer to the CONNECT is not HTTP")
        status = int(parts[1])
        if not 200 <= status < 300:
            raise _failed(f"the proxy refused the CONNECT with {status}")
        return sock
    except Refusal:
        sock.close()
        raise
    except OSError as exc:
        sock.close()
        raise _failed(f"the proxy connection failed: {exc}") from exc
    except BaseException:
        sock.close()
        raise
