"""Issue 49, point 3: the request's edges are answered as the document says, against a real
``hookproof serve`` over raw sockets.

A request line over 8,190 bytes is ``414 uri_too_long``, a header name or value over 8,190
bytes ``431 header_too_large``, more than 128 header fields ``431 too_many_headers``: problem+json
like every other refusal (aiohttp's own answer was a text/plain 400). One byte or one field
less is an ordinary request. Far past the limits aiohttp's parser refuses the request before
the application sees it (its plain 400): the README states that bound, and so does this test.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.daemon import run_cli, start_daemon

LIMIT = 8190


@pytest.fixture
def serve(tmp_path: Path, db_url_sync: str) -> Any:
    tmp = tmp_path
    env = {
        "HOOKPROOF_DATABASE_URL": db_url_sync,
        "HOOKPROOF_DATA_DIR": str(tmp),
        "HOOKPROOF_ROLES": "api",
    }
    created = run_cli(["tenant", "create", "acme", "--json"], env)
    assert created.returncode == 0, created.stderr
    token = json.loads(created.stdout.strip().splitlines()[-1])["token"]
    daemon = start_daemon(env, tmp)
    try:
        yield daemon, token
    finally:
        daemon.stop()


def _exchange(base_url: str, raw: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``raw`` on a fresh connection; the status, headers and body of the answer."""
    url = urlsplit(base_url)
    with socket.create_connection((url.hostname or "127.0.0.1", url.port or 80), 10) as s:
        s.sendall(raw)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(65536)
            assert chunk, f"closed without an answer: {data!r}"
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0"))
        while len(body) < length:
            chunk = s.recv(65536)
            if not chunk:
                break
            body += chunk
    return int(lines[0].split(" ", 2)[1]), headers, body


def _request(target: str, fields: list[tuple[str, str]]) -> bytes:
    head = f"GET {target} HTTP/1.1\r\n" + "".join(f"{n}: {v}\r\n" for n, v in fields)
    return (head + "\r\n").encode()


def _target(line_length: int) -> str:
    """A path under /v1 that makes ``GET <path> HTTP/1.1`` exactly ``line_length`` bytes."""
    prefix = "/v1/no-such-route/"
    return prefix + "a" * (line_length - len("GET  HTTP/1.1") - len(prefix))


def _problem(status: int, headers: dict[str, str], body: bytes, want: int) -> dict[str, Any]:
    assert status == want, body
    assert headers["content-type"].startswith("application/problem+json")
    doc: dict[str, Any] = json.loads(body)
    assert doc["status"] == want
    return doc


def test_a_request_line_over_8190_bytes_is_a_414_problem(serve: Any) -> None:
    daemon, _ = serve
    host = [("Host", "127.0.0.1")]
    status, headers, body = _exchange(daemon.base_url, _request(_target(LIMIT + 1), host))
    doc = _problem(status, headers, body, 414)
    assert doc["code"] == "uri_too_long"
    assert "aaaa" not in doc["detail"]  # the target is not echoed back

    # at the limit: an ordinary request (this path is no route: its own 404 problem)
    status, headers, body = _exchange(daemon.base_url, _request(_target(LIMIT), host))
    assert _problem(status, headers, body, 404)["code"] == "not_found"


def test_a_header_name_or_value_over_8190_bytes_is_a_431_problem(serve: Any) -> None:
    daemon, token = serve
    name = "X-Padding"
    over = [("Host", "127.0.0.1"), (name, "v" * (LIMIT + 1))]
    status, headers, body = _exchange(daemon.base_url, _request("/v1/whoami", over))
    doc = _problem(status, headers, body, 431)
    assert doc["code"] == "header_too_large"
    assert doc["field"] == name

    # the limit is on the field, before authentication: a token does not change it
    at = [("Host", "127.0.0.1"), ("Authorization", f"Bearer {token}")]
    at.append((name, "v" * LIMIT))
    status, _, body = _exchange(daemon.base_url, _request("/v1/whoami", at))
    assert status == 200, body
    status, headers, body = _exchange(
        daemon.base_url, _request("/v1/whoami", [*at[:2], (name, at[2][1] + "v")])
    )
    assert _problem(status, headers, body, 431)["code"] == "header_too_large"
    # a name over the limit too (its first 100 characters named)
    long_name = "X-" + "n" * (LIMIT - 1)
    status, headers, body = _exchange(
        daemon.base_url, _request("/v1/whoami", [*at[:2], (long_name, "1")])
    )
    doc = _problem(status, headers, body, 431)
    assert doc["code"] == "header_too_large" and doc["field"] == long_name[:100]


def test_more_than_128_header_fields_is_a_431_problem(serve: Any) -> None:
    daemon, token = serve
    fields = [("Host", "127.0.0.1"), ("Authorization", f"Bearer {token}")]
    fields += [(f"X-F{i}", "1") for i in range(128 - len(fields))]
    status, _, body = _exchange(daemon.base_url, _request("/v1/whoami", fields))
    assert status == 200, body

    status, headers, body = _exchange(
        daemon.base_url, _request("/v1/whoami", [*fields, ("X-One-Too-Many", "1")])
    )
    assert _problem(status, headers, body, 431)["code"] == "too_many_headers"


def test_far_past_the_limits_the_parser_refuses(serve: Any) -> None:
    """The documented bound (README): past a 32 KiB request target (16 KiB a header name or
    value, 256 fields) the parser's own plain 400 answers before the application runs."""
    daemon, _ = serve
    host = [("Host", "127.0.0.1")]
    status, _, _ = _exchange(daemon.base_url, _request(_target(64 * 1024), host))
    assert status == 400
    # the server is unharmed
    status, _, body = _exchange(daemon.base_url, _request("/healthz", host))
    assert status == 200, body
