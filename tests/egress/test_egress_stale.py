"""No stale bytes on a pooled connection (DESIGN.md section 5, "Connection reuse"; issue 23).

Real TLS on loopback (trustme), servers that misbehave on purpose: a byte that arrives on an
idle keep-alive connection, or past a response's framed end, closes that connection; it is
never read as the next request's answer. Every result's status is the one the server sent for
that very request.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import time

import structlog

from hookproof.engine.egress.connection import ConnectionState, HttpConnection

from .conftest import Request

BODY = b'{"type":"t","eventId":"e1"}'


def _answer(status: int, body: bytes = b"", extra: bytes = b"") -> bytes:
    head = f"HTTP/1.1 {status} X\r\nContent-Length: {len(body)}\r\nConnection: keep-alive\r\n\r\n"
    return head.encode() + body + extra


def _later(writer: asyncio.StreamWriter, data: bytes, delay: float) -> None:
    async def write() -> None:
        await asyncio.sleep(delay)
        if not writer.is_closing():
            writer.write(data)

    task = asyncio.get_running_loop().create_task(write())
    _PENDING.add(task)
    task.add_done_callback(_PENDING.discard)


_PENDING: set[asyncio.Task[None]] = set()


def _by_path(sent: list[tuple[int, int]], stale: bytes):
    """``/a``: 200, then ``stale`` 0.3 s later on the idle connection; ``/b``: always 500."""

    async def handler(request: Request, writer: asyncio.StreamWriter) -> None:
        if request.target == "/a":
            writer.write(_answer(200, b"a"))
            sent.append((request.connection, 200))
            _later(writer, stale, 0.3)
        else:
            writer.write(_answer(500, b"b"))
            sent.append((request.connection, 500))
        await writer.drain()

    return handler


async def test_unsolicited_response_on_an_idle_connection_is_never_the_next_answer(
    dns, make_server, make_transport
):
    sent: list[tuple[int, int]] = []
    server = await make_server(
        _by_path(sent, b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nstale"), keep_alive=True
    )
    dns.records["hooks.test"] = ["127.0.0.1"]
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    base = f"https://hooks.test:{server.port}"
    results = []
    with structlog.testing.capture_logs() as logs:
        for _ in range(3):
            results.append(await transport.post(f"{base}/a", BODY))
            await asyncio.sleep(0.45)  # the stale answer arrives on the idle connection
            results.append(await transport.post(f"{base}/b", BODY))
            results.append(await transport.post(f"{base}/b", BODY))
    assert [r.status for r in results] == [s for _, s in sent] == [200, 500, 500] * 3
    assert [r.body for r in results] == [b"a", b"b", b"b"] * 3
    assert not any(r.ok for r in results[1::3] + results[2::3])
    # each stale answer killed its connection (/a takes the pooled one, /b then opens one
    # that the second /b and the next /a reuse): 1 + 3 connections
    assert server.connections == 4
    closed = [e for e in logs if e.get("reason") == "bytes_while_idle"]
    assert len(closed) == 3 and closed[0]["log_level"] == "warning"


async def test_a_408_on_an_idle_connection_is_not_the_next_answer(dns, make_server, make_transport):
    sent: list[tuple[int, int]] = []
    timeout = b"HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
    server = await make_server(_by_path(sent, timeout), keep_alive=True)
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    base = f"https://127.0.0.1:{server.port}"
    first = await transport.post(f"{base}/a", BODY)
    await asyncio.sleep(0.45)
    second = await transport.post(f"{base}/a", BODY)
    assert (first.status, second.status) == (200, 200) and first.ok and second.ok
    assert sent == [(1, 200), (2, 200)]


async def test_bytes_past_the_content_length_make_the_connection_unusable(
    make_server, make_transport
):
    sent: list[tuple[int, int]] = []

    async def handler(request: Request, writer: asyncio.StreamWriter) -> None:
        if request.target == "/a":  # two bytes more than declared, then a whole answer
            writer.write(_answer(200, b"ok", b"!!" + _answer(200, b"smuggled")))
            sent.append((request.connection, 200))
        else:
            writer.write(_answer(500, b"b"))
            sent.append((request.connection, 500))
        await writer.drain()

    server = await make_server(handler, keep_alive=True)
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    base = f"https://127.0.0.1:{server.port}"
    first = await transport.post(f"{base}/a", BODY)
    second = await transport.post(f"{base}/b", BODY)
    assert (first.status, first.body) == (200, b"ok")  # the framed answer stands
    assert (second.status, second.body) == (500, b"b")
    assert sent == [(1, 200), (2, 500)]  # the first connection was not used again


async def test_a_server_answering_before_reading_the_body(pki, make_transport):
    """The answer is that request's evidence; the connection (whose unread body the server
    would read as the next request) is closed, and the next request gets its own answer."""
    seen: list[tuple[int, bytes]] = []
    connections = 0

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        number = connections
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                seen.append((number, head.split(b"\r\n", 1)[0]))
                length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
                if length > 1_000_000:  # too big: answer at once, never read it
                    writer.write(_answer(413, b"too big"))
                    await writer.drain()
                    await asyncio.sleep(10)
                    return
                await reader.readexactly(length)
                writer.write(_answer(200, b"ok"))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError, IndexError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0, ssl=pki.server_context())
    port = server.sockets[0].getsockname()[1]
    try:
        transport = make_transport(allow=(("127.0.0.1", port),), total_timeout_s=5.0)
        url = f"https://127.0.0.1:{port}/in"
        big = await transport.post(url, b"x" * (32 * 1024 * 1024))
        assert (big.status, big.body) == (413, b"too big")
        assert not big.request_written  # the answer came while the body was being written
        small = await transport.post(url, BODY)
        assert (small.status, small.body) == (200, b"ok")
        assert [n for n, _ in seen] == [1, 2]  # a new connection for the next request
        assert all(line == b"POST /in HTTP/1.1" for _, line in seen)
    finally:
        server.close()
        await server.wait_closed()


async def test_an_answer_ended_by_the_close_is_complete_and_never_pooled(
    make_server, make_transport
):
    async def handler(_request: Request, writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\n\r\nuntil the end")  # no length: ends with the close
        await writer.drain()

    server = await make_server(handler)
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    url = f"https://127.0.0.1:{server.port}/"
    results = [await transport.post(url, BODY) for _ in range(2)]
    assert [(r.status, r.body, r.code) for r in results] == [(200, b"until the end", None)] * 2
    assert server.connections == 2



async def test_bytes_waiting_unread_in_the_kernel_are_not_the_next_answer(pki, make_server):
    """The stale bytes are already in the client's socket when the idle connection is taken,
    but the event loop has not handed them over (it is held with a blocking sleep): ``take``
    refuses the connection on the spot, so they are never read as the next exchange's answer."""
    writers: list[asyncio.StreamWriter] = []

    async def handler(request: Request, writer: asyncio.StreamWriter) -> None:
        writer.write(_answer(200, b"x"))
        writers.append(writer)
        await writer.drain()

    server = await make_server(handler, keep_alive=True)
    client = ssl.create_default_context()
    pki.ca.configure_trust(client)
    conn = HttpConnection(client, "hooks.test")
    sock = socket.create_connection(("127.0.0.1", server.port))
    sock.setblocking(False)
    await asyncio.get_running_loop().create_connection(lambda: conn, sock=sock)
    conn.sock = sock
    await conn.handshake()
    answer = conn.start(max_body=1024)
    conn.write(b"GET /a HTTP/1.1\r\nHost: hooks.test\r\nContent-Length: 0\r\n\r\n")
    while not conn.finished:
        await conn.wait()
    conn.end()
    assert answer.status == 200 and conn.reusable() and conn.park()
    await asyncio.sleep(0.05)
    assert conn.take() and conn.park()  # nothing arrived: fit for reuse

    writers[-1].write(_answer(200, b"stale"))  # sent at once (nothing buffered before it)
    time.sleep(0.3)  # noqa: ASYNC251 -- on purpose: the loop must not run meanwhile
    assert not conn.take()
    assert conn.stale and conn.state == ConnectionState.DEAD
