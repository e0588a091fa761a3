"""Issue 11, defect 9: list routes are bounded and paged (``limit``, ``cursor``,
``nextCursor``), served from the projections with no per-item reads."""

from __future__ import annotations

from typing import Any

import msgspec

from hookproof.engine.runtime.daemon import Engine
from hookproof.schemas.api import SubscriptionCreate

from .harness import Api, HookServer, active_subscription, dispatch_all, ok_endpoint, publish


async def pages(api: Api, path: str, token: str, limit: int) -> list[list[Any]]:
    out: list[list[Any]] = []
    cursor = None
    for _ in range(100):
        sep = "&" if "?" in path else "?"
        url = f"{path}{sep}limit={limit}" + (f"&cursor={cursor}" if cursor else "")
        status, doc = await api.call("GET", url, token=token)
        assert status == 200, doc
        assert len(doc["items"]) <= limit
        out.append(doc["items"])
        cursor = doc["nextCursor"]
        if cursor is None:
            return out
    raise AssertionError("pagination did not end")


async def test_subscriptions_paged_from_the_projection(
    engine: Engine, api: Api, tenant_token: tuple[str, str]
) -> None:
    tenant, token = tenant_token
    other = await engine.tenants.create("globex")
    made = []
    for i in range(7):
        body = {
            "endpoint": f"https://hooks.example.com/{i}",
            "topics": ["a"],
            "eventVersions": [1],
            "region": "eu",
            "signatureAlgorithm": "ed25519",
            "owner": "o",
        }
        state, _ = await engine.subscriptions.register(
            tenant, msgspec.convert(body, SubscriptionCreate), actor="test"
        )
        made.append(state.subscription_id)
    await engine.subscriptions.register(
        other.tenant_id, msgspec.convert({**body, "owner": "x"}, SubscriptionCreate), actor="t"
    )
    loads = 0
    real_load = engine.subscriptions.load

    async def counting_load(sid: str) -> Any:  # a spy: every per-item stream read counts
        nonlocal loads
        loads += 1
        return await real_load(sid)

    engine.subscriptions.load = counting_load  # type: ignore[method-assign]
    got = await pages(api, "/v1/subscriptions", token, 3)
    assert [len(p) for p in got] == [3, 3, 1]
    assert [s["id"] for p in got for s in p] == made  # creation order, no gap, no repeat
    assert loads == 0, "a list page must not read each subscription's stream on its own"
    full = (await api.call("GET", f"/v1/subscriptions/{made[0]}", token=token))[1]
    assert got[0][0] == full  # the same view as a single read
    status, doc = await api.call("GET", "/v1/subscriptions", token=token)
    assert status == 200 and len(doc["items"]) == 7 and doc["nextCursor"] is None
    assert [len(p) for p in await pages(api, "/v1/subscriptions", other.token, 3)] == [1]
    for query in ("limit=0", "limit=501", "limit=x", "limit=%C2%B2", "cursor=nope", "cursor=W10"):
        status, doc = await api.call("GET", f"/v1/subscriptions?{query}", token=token)
        assert status == 400 and doc["code"] in ("invalid_limit", "invalid_cursor"), (query, doc)


async def test_history_and_dead_letters_paged(
    engine: Engine, api: Api, hooks: HookServer, tenant_token: tuple[str, str]
) -> None:
    tenant, token = tenant_token
    hooks.mount("gone", ok_endpoint(status=410))
    sid = await active_subscription(
        engine, tenant, hooks.url("gone"), retryPolicy={"onGone": "dead_letter"}
    )
    dead = []
    for i in range(5):
        [d] = (await publish(engine, tenant, f"evt-{i}")).deliveries
        dead.append(d["deliveryId"])
    await dispatch_all(engine)
    got = await pages(api, "/v1/dead-letters", token, 2)
    assert [len(p) for p in got] == [2, 2, 1]
    assert sorted(x["deliveryId"] for p in got for x in p) == sorted(dead)
    whole = (await api.call("GET", "/v1/dead-letters", token=token))[1]["items"]
    assert [x["deliveryId"] for p in got for x in p] == [x["deliveryId"] for x in whole]
    other = await engine.tenants.create("globex")
    assert await pages(api, "/v1/dead-letters", other.token, 2) == [[]]

    status, doc = await api.call("GET", f"/v1/subscriptions/{sid}/history", token=token)
    assert status == 200 and doc["nextCursor"] is None
    everything = doc["items"]
    assert len(everything) >= 3
    got = await pages(api, f"/v1/subscriptions/{sid}/history", token, 2)
    assert [e["streamVersion"] for p in got for e in p] == [e["streamVersion"] for e in everything]
    status, doc = await api.call("GET", f"/v1/subscriptions/{sid}/history?limit=1001", token=token)
    assert status == 400 and doc["code"] == "invalid_limit"
