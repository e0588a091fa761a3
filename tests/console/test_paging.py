"""Issue 24, point 5: timelines and ``GET /v1/rollouts`` are paged like every other list.

``limit`` and ``cursor`` in, ``nextCursor`` out (null on the last page); following the cursors
gives every entry once, in order; a bad cursor or limit is a 400 with the codes the other lists
use (``invalid_cursor``, ``invalid_limit``).
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from hookproof.engine.runtime.daemon import Engine

from ..delivery.conftest import Subscriber, active_subscription, dispatch_all, publish
from ..live import ADMIN_TOKEN, Client


@pytest.fixture
async def base(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[str]:
    monkeypatch.setenv("HOOKPROOF_ADMIN_TOKEN", ADMIN_TOKEN)
    server = TestServer(engine.app(), host="127.0.0.1")
    await server.start_server()
    yield str(server.make_url("")).rstrip("/")
    await server.close()


async def walk(client: Client, path: str, key: str, limit: int) -> list[Any]:
    """Every item of a paged route, following ``nextCursor``; each page at most ``limit``."""
    out: list[Any] = []
    cursor = None
    sep = "&" if "?" in path else "?"
    for _ in range(100):
        url = f"{path}{sep}limit={limit}" + (f"&cursor={cursor}" if cursor else "")
        status, page = await client.call("GET", url)
        assert status == 200, page
        assert len(page[key]) <= limit
        out += page[key]
        cursor = page["nextCursor"]
        if cursor is None:
            return out
    raise AssertionError("no last page")


async def refused(client: Client, path: str) -> None:
    forged = base64.urlsafe_b64encode(json.dumps(["x", 1, 2]).encode()).decode()
    for query, code in (
        ("limit=0", "invalid_limit"),
        ("limit=5001", "invalid_limit"),
        ("limit=x", "invalid_limit"),
        ("cursor=%21%21", "invalid_cursor"),
        (f"cursor={forged}", "invalid_cursor"),
    ):
        status, problem = await client.call("GET", f"{path}?{query}")
        assert (status, problem["code"]) == (400, code), (path, query, problem)


async def test_timelines_are_paged(engine: Engine, base: str, subscriber: Subscriber) -> None:
    acme = await engine.tenants.create("acme")
    sid = await active_subscription(engine, acme.tenant_id, subscriber.url("ok-a"))
    result = await publish(engine, acme.tenant_id, "evt-1")
    await dispatch_all(engine)
    did = result.deliveries[0]["deliveryId"]
    async with aiohttp.ClientSession() as http:
        a = Client(http, base, acme.token)
        for path in (f"/v1/deliveries/{did}/timeline", f"/v1/subscriptions/{sid}/timeline"):
            status, whole = await a.call("GET", path)
            assert status == 200 and whole["nextCursor"] is None and len(whole["entries"]) >= 3
            for limit in (1, 2):
                entries = await walk(a, path, "entries", limit)
                assert entries == whole["entries"], (path, limit)
            status, first = await a.call("GET", path + "?limit=1")
            assert first["state"] == whole["state"] and first["nextCursor"] is not None
            await refused(a, path)


async def test_rollouts_are_paged(engine: Engine, base: str) -> None:
    body = {"target": {"signatureProfile": "hookproof.sig.v1"}, "subscriptions": "all"}
    async with aiohttp.ClientSession() as http:
        op = Client(http, base, ADMIN_TOKEN)
        made = []
        for _ in range(5):
            status, ro = await op.call("POST", "/v1/rollouts", body)
            assert status == 201, ro
            made.append(ro["id"])
        status, whole = await op.call("GET", "/v1/rollouts")
        assert status == 200 and whole["nextCursor"] is None
        assert [r["id"] for r in whole["items"]] == made  # oldest first
        for limit in (1, 2, 5):
            assert [r["id"] for r in await walk(op, "/v1/rollouts", "items", limit)] == made
        await refused(op, "/v1/rollouts")
