"""The request the adapter writes itself and how it reads the answer (real TLS, loopback).

The adapter writes the request head and body on the connection the pinned pool hands it and
parses the answer with aiohttp's response parser: these tests hold the wire format, the
refusal of fields that would smuggle others, the parser's limits and the connection's fate.
"""

from __future__ import annotations

import asyncio

import pytest

from hookproof.engine.egress import Outcome
from hookproof.engine.egress.adapter import _Target, request_head

from .conftest import Request, respond

BODY = b'{"type":"t","eventId":"e1"}'


def test_request_head_is_what_aiohttp_writes() -> None:
    target = _Target("https://hooks.test:8443/in?x=1")
    head = request_head(
        target,
        [("User-Agent", "ua/1"), ("Accept-Encoding", "identity"), ("Content-Type", "a/b")],
        27,
        close=False,
    )
    assert head == (
        b"POST /in?x=1 HTTP/1.1\r\nHost: hooks.test:8443\r\nUser-Agent: ua/1\r\n"
        b"Accept-Encoding: identity\r\nContent-Type: a/b\r\nAccept: */*\r\n"
        b"Content-Length: 27\r\n\r\n"
    )
    plain = request_head(_Target("https://[::1]/"), [("Accept", "x")], 0, close=True)
    assert plain == (
        b"POST / HTTP/1.1\r\nHost: [::1]\r\nAccept: x\r\nContent-Length: 0\r\n"
        b"Content-Type: application/octet-stream\r\nConnection: close\r\n\r\n"
    )


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("X-Ok", "a\r\nX-Smuggled: 1"),
        ("X-Ok", "a\nb"),
        ("X-Ok", "a\rb"),
        ("X-Ok", "a\x00b"),
        ("X Bad", "v"),
        ("X-Bad:", "v"),
        ("", "v"),
    ],
)
def test_request_head_refuses_fields_that_would_smuggle_others(name: str, value: str) -> None:
    with pytest.raises(ValueError):
        request_head(_Target("https://hooks.test/"), [(name, value)], 0, close=False)


@pytest.mark.parametrize(
    "url",
    [
        "https://site.example:443/a b",
        "https://site.example:443/a\r\nX-Injected: 1",
        "https://site.example:443/a\r\nX-Injected:1",
        "https://site.example:443/a\tb",
        "https://site.example:443/a\x00",
        "https://site.example:443/a\x7f",
    ],
)
def test_request_line_never_carries_a_target_that_would_split_the_head(url: str) -> None:
    """Refused, or (yarl drops tabs and line breaks from a URL) written without them: the
    request line is never split."""
    try:
        head = _Target(url).head
    except ValueError:
        return
    line, host, end = head.split(b"\r\n")[:3]
    assert end == b"" and host == b"Host: site.example"
    method, target, version = line.split(b" ")
    assert (method, version) == (b"POST", b"HTTP/1.1")
    assert not any(c <= 0x20 or c == 0x7F for c in target)


def test_request_line_keeps_percent_encoding() -> None:
    assert _Target("https://site.example:443/a%20b?c=%0D%0A").head.startswith(
        b"POST /a%20b?c=%0D%0A HTTP/1.1\r\n"
    )


async def test_smuggling_header_is_refused_before_a_byte_is_written(make_server, make_transport):
    server = await make_server()
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    url = f"https://127.0.0.1:{server.port}/in"
    result = await transport.post(url, BODY, {"X-Evil": "a\r\nX-Smuggled: 1"})
    assert result.status is None and not result.request_started
    assert result.outcome is Outcome.NOT_SENT
    await asyncio.sleep(0.05)
    assert server.requests == []


async def _raw(data: bytes):  # a handler answering with exactly these bytes
    async def handler(_request: Request, writer: asyncio.StreamWriter) -> None:
        writer.write(data)
        await writer.drain()

    return handler


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 2OO OK\r\nContent-Length: 0\r\n\r\n",
        b"NOT HTTP\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nX-Long: " + b"a" * 9000 + b"\r\nContent-Length: 0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(200)) + b"\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
    ],
    ids=["bad-status", "not-http", "field-too-long", "too-many-fields", "two-lengths"],
)
async def test_malformed_answers_are_protocol_errors(answer, make_server, make_transport):
    server = await make_server(await _raw(answer))
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    result = await transport.post(f"https://127.0.0.1:{server.port}/", BODY)
    assert result.code == "protocol_error" and result.status is None
    assert result.outcome is Outcome.UNKNOWN and result.request_written


async def test_informational_answers_are_skipped(make_server, make_transport):
    server = await make_server(
        await _raw(
            b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok"
        )
    )
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    result = await transport.post(f"https://127.0.0.1:{server.port}/", BODY)
    assert result.ok and result.status == 201 and result.body == b"ok"


async def test_answer_saying_close_is_not_pooled(make_server, make_transport, socket_guard):
    server = await make_server(respond(200, b"ok", {"Connection": "close"}), keep_alive=True)
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    url = f"https://127.0.0.1:{server.port}/"
    results = [await transport.post(url, BODY) for _ in range(3)]
    assert all(r.ok for r in results)
    assert server.connections == 3 and socket_guard.connects_to(server.port) == 3
    assert transport.adapter.connector is not None
    assert (transport.adapter.connector.opened, transport.adapter.connector.reused) == (3, 0)


async def test_unread_body_closes_the_connection(make_server, make_transport):
    big = b"x" * (70 * 1024)
    server = await make_server(respond(200, big, {"Connection": "keep-alive"}), keep_alive=True)
    transport = make_transport(allow=(("127.0.0.1", server.port),), max_response_bytes=1024)
    url = f"https://127.0.0.1:{server.port}/"
    first = await transport.post(url, BODY)
    assert first.code == "response_too_large" and first.status == 200
    second = await transport.post(url, BODY)
    assert second.code == "response_too_large"
    assert server.connections == 2  # the first connection was not reused mid-body


async def test_pool_disabled_asks_the_server_to_close(make_server, make_transport):
    server = await make_server(keep_alive=True)
    transport = make_transport(allow=(("127.0.0.1", server.port),), pool_enabled=False)
    result = await transport.post(f"https://127.0.0.1:{server.port}/", BODY)
    assert result.ok
    (req,) = server.requests
    assert req.headers["connection"] == "close"
    assert req.headers["content-length"] == str(len(BODY))
    assert req.headers["content-type"] == "application/octet-stream"
    assert req.headers["accept"] == "*/*"
