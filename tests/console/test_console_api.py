"""The routes the console reads, as any client sees them: documented, tenant-scoped, and the
engine-wide gates behind the operator token. The page itself under a strict CSP."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from hookproof.engine.api.openapi import openapi_document
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


async def test_tenant_sees_only_its_own_timelines_and_deliveries(
    engine: Engine, base: str, subscriber: Subscriber
) -> None:
    acme = await engine.tenants.create("acme")
    other = await engine.tenants.create("other")
    sid = await active_subscription(engine, acme.tenant_id, subscriber.url("ok-a"))
    fail = await active_subscription(
        engine,
        acme.tenant_id,
        subscriber.url("fail500-a"),
        retryPolicy={"maxAttempts": 1},
    )
    result = await publish(engine, acme.tenant_id, "evt-1")
    await dispatch_all(engine)
    did = next(d["deliveryId"] for d in result.deliveries if d["subscriptionId"] == sid)
    async with aiohttp.ClientSession() as http:
        a = Client(http, base, acme.token)
        o = Client(http, base, other.token)
        op = Client(http, base, ADMIN_TOKEN)

        assert await a.call("GET", "/v1/whoami") == (
            200,
            {"kind": "tenant", "tenantId": acme.tenant_id},
        )
        assert await op.call("GET", "/v1/whoami") == (200, {"kind": "operator"})
        status, problem = await Client(http, base, "hp_x_y").call("GET", "/v1/whoami")
        assert status == 401 and problem["code"] == "invalid_token"

        status, listed = await a.call("GET", f"/v1/deliveries?subscriptionId={sid}")
        assert status == 200 and [d["deliveryId"] for d in listed["items"]] == [did]
        assert listed["items"][0]["evidence"]["endpoint"] == "ENDPOINT_ACCEPTED"
        status, dead = await a.call("GET", "/v1/deliveries?state=DEAD_LETTER")
        assert [d["subscriptionId"] for d in dead["items"]] == [fail]
        status, problem = await a.call("GET", "/v1/deliveries?state=GREEN_TICK")
        assert status == 400 and problem["field"] == "state"
        status, problem = await a.call("GET", "/v1/deliveries?limit=0")
        assert status == 400 and problem["field"] == "limit"

        status, tl = await a.call("GET", f"/v1/deliveries/{did}/timeline")
        assert status == 200 and tl["kind"] == "delivery"
        assert [e["type"] for e in tl["entries"]] == [
            "delivery.planned",
            "delivery.attempt_admitted",
            "delivery.endpoint_accepted",
        ]
        status, tl = await a.call("GET", f"/v1/subscriptions/{sid}/timeline")
        assert status == 200 and tl["state"]["state"] == "ACTIVE"
        status, _ = await a.call("GET", f"/v1/subscriptions/{sid}/timeline?asOf=yesterday")
        assert status == 400

        # the other tenant: nothing of acme's, not even its existence
        assert (await o.call("GET", "/v1/deliveries"))[1]["items"] == []
        assert (await o.call("GET", f"/v1/deliveries?subscriptionId={sid}"))[1]["items"] == []
        for path in (f"/v1/deliveries/{did}/timeline", f"/v1/subscriptions/{sid}/timeline"):
            status, problem = await o.call("GET", path)
            assert status == 404, path
            assert acme.tenant_id not in str(problem)

        # gates: engine-wide, so the operator's only
        status, problem = await a.call("GET", "/v1/gates")
        assert status == 403 and problem["code"] == "operator_only"
        status, problem = await Client(http, base, "nope").call("GET", "/v1/gates")
        assert status == 401
        status, gates = await op.call("GET", "/v1/gates")
        assert status == 200 and {g["gate"] for g in gates["gates"]} >= {
            "challenge_false_activations",
            "dead_letters_without_owner",
        }
        assert gates["ok"] is True
        # the operator token is not a tenant's: tenant data stays closed to it
        status, problem = await op.call("GET", "/v1/subscriptions")
        assert status == 403 and problem["code"] == "tenant_only"


async def test_console_files_are_served_with_a_strict_policy(base: str) -> None:
    async with aiohttp.ClientSession() as http:
        for path, kind in (
            ("/console", "text/html"),
            ("/console/console.js", "text/javascript"),
            ("/console/portal.js", "text/javascript"),
            ("/console/views.js", "text/javascript"),
            ("/console/console.css", "text/css"),
            ("/console/verify", "text/html"),
        ):
            async with http.get(base + path) as r:
                assert r.status == 200 and r.content_type == kind
                csp = r.headers["Content-Security-Policy"]
                assert "default-src 'none'" in csp
                assert "script-src 'self'" in csp and "unsafe" not in csp
                assert "connect-src 'self'" in csp
                assert r.headers["X-Content-Type-Options"] == "nosniff"
                # nothing fetched from elsewhere (the SVG namespace is a name, not a fetch)
                body = (await r.text()).replace('"http://www.w3.org/2000/svg"', "")
                assert "http://" not in body and "https://" not in body and "//cdn" not in body
        async with http.get(base + "/console") as r:
            html = await r.text()
        assert "<script>" not in html and "style=" not in html  # nothing inline


def test_console_routes_are_documented() -> None:
    paths = openapi_document()["paths"]
    for path in (
        "/console",
        "/v1/whoami",
        "/v1/deliveries",
        "/v1/deliveries/{id}/timeline",
        "/v1/subscriptions/{id}/timeline",
        "/v1/gates",
    ):
        assert "get" in paths[path], path
