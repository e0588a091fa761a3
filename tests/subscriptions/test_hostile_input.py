"""Issue 11, defects 4, 5 and 6: no input, from anyone, is answered with a 5xx.

Hostile bytes go over a raw socket (no client library normalises them): non-UTF-8
``Authorization`` headers, ``%00`` and malformed ids on every id route, NUL in fields, deep
JSON, odd ``If-Match`` values, and a body split across TCP segments.
"""

from __future__ import annotations

import asyncio
import json
import re
from urllib.parse import urlsplit

import pytest

from hookproof.engine.runtime.daemon import Engine

from .conftest import Api, sub_body


async def raw(
    api: Api, request: bytes, *, then: bytes = b"", pause: float = 0.0
) -> tuple[int, dict[str, object]]:
    """Send ``request`` (and ``then`` after a pause) on one connection; status and JSON body."""
    url = urlsplit(api.base)
    reader, writer = await asyncio.open_connection(url.hostname, url.port)
    try:
        writer.write(request)
        await writer.drain()
        if then:
            await asyncio.sleep(pause)
            writer.write(then)
            await writer.drain()
        data = await reader.read()
    finally:
        writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    try:
        doc = json.loads(body) if body else {}
    except ValueError:
        doc = {"raw": body[:200].decode(errors="replace")}
    return status, doc


def http(method: str, path: bytes, headers: dict[bytes, bytes], body: bytes = b"") -> bytes:
    lines = [method.encode() + b" " + path + b" HTTP/1.1", b"Host: 127.0.0.1", b"Connection: close"]
    lines += [k + b": " + v for k, v in headers.items()]
    if body or method in ("POST", "PATCH"):
        lines.append(b"Content-Length: " + str(len(body)).encode())
        lines.append(b"Content-Type: application/json")
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def all_routes(engine: Engine) -> list[tuple[str, str]]:
    """Every routed (method, path template), whoever added it."""
    out = []
    for route in engine.app().router.routes():
        info = route.resource.get_info() if route.resource else {}
        path = info.get("formatter") or info.get("path")
        if path and route.method not in ("HEAD", "*"):
            out.append((route.method, path))
    return sorted(set(out))


def id_routes(engine: Engine) -> list[tuple[str, str]]:
    """Every routed (method, path template) with a path parameter, whoever added it."""
    return [(m, p) for m, p in all_routes(engine) if "{" in p]


def client_error(status: int, doc: dict[str, object]) -> bool:
    return 400 <= status < 500 and bool(doc.get("code"))


async def test_non_utf8_authorization_is_never_a_server_error(
    api: Api, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every route, with the operator token configured: an undecodable Authorization is
    refused by the authentication step itself (never the error middleware's safety net)."""
    monkeypatch.setenv("HOOKPROOF_ADMIN_TOKEN", "operator-token")
    monkeypatch.setenv("HOOKPROOF_METRICS_TOKEN", "metrics-token")
    paths = {(m, re.sub(r"\{[^}]+\}", "sub_" + "0" * 24, p)) for m, p in all_routes(engine)}
    for method, path in sorted(paths):
        for value in (b"Bearer hp_\xff\xfe_\xc3\x28", b"\xff\xff", b"Bearer \x80" * 50):
            status, doc = await raw(api, http(method, path.encode(), {b"Authorization": value}))
            assert status < 500 and doc.get("code") != "invalid_data", (method, path, value, doc)
            # receipts and broker challenge answers carry their own proof, never a token
            if path.startswith("/v1/") and path != "/v1/receipts" and "/challenges/" not in path:
                assert status == 401, (method, path, value, status, doc)


async def test_every_id_route_refuses_malformed_ids(api: Api, engine: Engine, token: str) -> None:
    routes = id_routes(engine)
    assert len(routes) >= 10, routes
    auth = {b"Authorization": f"Bearer {token}".encode()}
    for method, template in routes:
        for bad in ("%00", "sub_%00", "a%00b", "%ED%A0%80", "%FF", "x" * 300, "..%2F..", "%20"):
            path = re.sub(r"\{[^}]+\}", bad, template).encode()
            status, doc = await raw(api, http(method, path, auth, b"{}"))
            assert client_error(status, doc), (method, path, status, doc)


async def test_nul_and_deep_json_and_if_match(api: Api, token: str) -> None:
    status, _, doc = await api.call(
        "POST", "/v1/subscriptions", token=token, json=sub_body(topics=["a\u0000b"])
    )
    assert status == 400 and doc["field"] == "topics", doc
    status, _, doc = await api.call(
        "POST", "/v1/subscriptions", token=token, json=sub_body(owner="o\u0000")
    )
    assert status == 400, doc
    event = {
        "eventId": "e-1",
        "topic": "order\u0000created",
        "version": "1.0",
        "aggregateId": "a",
        "aggregateVersion": 1,
        "occurredAt": "2026-11-30T10:00:00Z",
        "payload": {},
    }
    status, _, doc = await api.call("POST", "/v1/events", token=token, json=event)
    assert status == 400 and doc["field"] == "topic", doc
    deep = b'{"payload":' * 2000 + b"1" + b"}" * 2000
    for path in ("/v1/subscriptions", "/v1/events"):
        for body in (deep, b"[" * 2000 + b"]" * 2000):
            status, _, doc = await api.call("POST", path, token=token, data=body)
            assert status == 400 and doc["code"] == "json_too_deep", (path, status, doc)
    deep_payload = json.dumps({**event, "topic": "t"})[:-1] + ',"x":' + "[" * 2000 + "]" * 2000
    status, _, doc = await api.call(
        "POST", "/v1/events", token=token, data=(deep_payload + "}").encode()
    )
    assert status == 400, doc
    _, _, sub = await api.call("POST", "/v1/subscriptions", token=token, json=sub_body())
    for value in ('"²"', "²", '"' + "9" * 5000 + '"', '"\u0661"', 'W/"\u00b3"'):
        status, _, doc = await api.call(
            "PATCH",
            f"/v1/subscriptions/{sub['id']}",
            token=token,
            json={"owner": "x"},
            headers={"If-Match": value},
        )
        assert status == 400 and doc["code"] == "bad_if_match", (value, status, doc)


async def test_body_split_across_segments_is_read_whole(api: Api, token: str) -> None:
    event = {
        "eventId": "split-1",
        "topic": "order.created",
        "version": "1.0",
        "aggregateId": "a",
        "aggregateVersion": 1,
        "occurredAt": "2026-11-30T10:00:00Z",
        "payload": {"blob": "x" * 5000},
    }
    body = json.dumps(event).encode()
    request = http("POST", b"/v1/events", {b"Authorization": f"Bearer {token}".encode()}, body)
    head_len = request.index(b"\r\n\r\n") + 4
    cut = head_len + 1000
    status, doc = await raw(api, request[:cut], then=request[cut:], pause=0.3)
    assert status == 202, doc
    assert doc["eventId"] == "split-1"
    sub = json.dumps(sub_body()).encode()
    request = http(
        "POST", b"/v1/subscriptions", {b"Authorization": f"Bearer {token}".encode()}, sub
    )
    cut = request.index(b"\r\n\r\n") + 4 + 20
    status, doc = await raw(api, request[:cut], then=request[cut:], pause=0.3)
    assert status == 201, doc
