"""A client that streams a request body forever, and a prober of ``/healthz`` beside it.

Both are plain sockets and threads, so they keep working whatever the server does: the
streamer stops when the server answers or closes the connection (or at its own cap), the
prober records every probe's status and latency.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

__all__ = [
    "DEFLATE_EMPTY_BLOCK",
    "GZIP_HEADER",
    "HealthProbe",
    "Streamed",
    "stream_body",
]

#: a raw deflate stored block that is not the last one and holds nothing (inflates to b"")
DEFLATE_EMPTY_BLOCK = b"\x00\x00\x00\xff\xff"
#: a gzip member header (deflate, no flags, no mtime, unknown OS)
GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"

_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


@dataclass
class Streamed:
    """What the streaming client saw: the answer (if any), its problem document, how many
    body bytes it handed to its socket, and why it stopped."""

    status: int | None
    problem: dict[str, Any] | None
    sent: int
    stopped: str  # "answered", "closed" or "cap"
    headers: dict[str, str] = field(default_factory=dict)
    #: the server ended the connection (EOF or reset) after its answer
    ended: bool = False


def _parse(raw: bytes) -> tuple[int | None, dict[str, str], dict[str, Any] | None]:
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    if not lines or not lines[0].startswith(b"HTTP/1.1 "):
        return None, {}, None
    status = int(lines[0].split(b" ", 2)[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        headers[name.strip().lower().decode()] = value.strip().decode()
    length = int(headers.get("content-length", "0"))
    doc = None
    if length and len(body) >= length:
        try:
            doc = json.loads(body[:length])
        except ValueError:
            doc = None
    return status, headers, doc


def stream_body(
    base_url: str,
    path: str,
    *,
    first: bytes,
    piece: bytes,
    encoding: str | None,
    method: str = "POST",
    headers: dict[str, str] | None = None,
    framed: bool = True,
    pause_s: float = 0.0,
    cap_bytes: int = 32 * 1024 * 1024,
    cap_s: float = 20.0,
) -> Streamed:
    """Send ``first`` then ``piece`` again and again as HTTP/1.1 chunks (no Content-Length),
    until the server answers or closes, or ``cap_bytes``/``cap_s`` is reached. ``framed``
    false: the bytes go as given after the head (e.g. a chunk-size line that never ends)."""
    url = urlsplit(base_url)
    sock = socket.create_connection((url.hostname, url.port), timeout=10)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 * 1024)
    head = [f"{method} {path} HTTP/1.1", f"Host: {url.hostname}", "Transfer-Encoding: chunked"]
    head.append("Content-Type: application/json")
    if encoding:
        head.append(f"Content-Encoding: {encoding}")
    head += [f"{k}: {v}" for k, v in (headers or {}).items()]
    received = b""
    sent = 0
    stopped = "cap"
    deadline = time.monotonic() + cap_s
    try:
        sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode())
        data = first
        while sent < cap_bytes and time.monotonic() < deadline:
            readable, writable, _ = select.select([sock], [sock], [], 1.0)
            if readable:
                got = sock.recv(65536)
                if not got:
                    stopped = "closed"
                    break
                received += got
                stopped = "answered"
                break
            if not writable:
                continue
            chunk = f"{len(data):x}\r\n".encode() + data + b"\r\n" if framed else data
            sock.sendall(chunk)
            sent += len(data)
            data = piece
            if pause_s:
                time.sleep(pause_s)
    except (BrokenPipeError, ConnectionResetError):
        stopped = "closed"
    # whatever answer arrived (or arrives now): read it to the end of the connection
    sock.settimeout(10)
    ended = False
    try:
        while True:
            got = sock.recv(65536)
            if not got:
                ended = True
                break
            received += got
            if stopped == "cap":
                stopped = "answered"
    except ConnectionResetError:
        ended = True
    except OSError:  # the timeout: the server kept the connection open
        pass
    finally:
        sock.close()
    status, resp_headers, doc = _parse(received)
    return Streamed(status, doc, sent, stopped, resp_headers, ended)


class HealthProbe:
    """GET ``/healthz`` every ``every_s`` on a fresh connection, in a thread, until stopped."""

    def __init__(self, base_url: str, every_s: float = 0.025) -> None:
        self.url = base_url + "/healthz"
        self.every_s = every_s
        self.results: list[tuple[int, float]] = []  # (status or 0, seconds)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            t0 = time.perf_counter()
            try:
                with _OPENER.open(self.url, timeout=5) as r:
                    r.read()
                    status = r.status
            except (urllib.error.URLError, OSError):
                status = 0
            self.results.append((status, time.perf_counter() - t0))
            self._stop.wait(self.every_s)

    def __enter__(self) -> HealthProbe:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(10)

    @property
    def failures(self) -> list[tuple[int, float]]:
        return [r for r in self.results if r[0] != 200]

    @property
    def worst_s(self) -> float:
        return max((s for _, s in self.results), default=0.0)
