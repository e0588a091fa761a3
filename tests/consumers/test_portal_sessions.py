"""Issue 32, point 4: a portal session belongs to the token that started it.

Revoking a tenant token (``hookproof tenant revoke-token``, a real CLI process against the
engine's database) ends every session that token started, in the revoking transaction: the
session answers 401 at once and can register nothing, while the sessions of another token of
the same tenant and of the operator (``hookproof tenant portal-session``) stay. A tenant lists
a consumer's live sessions (paged, no token material) and ends them all; another tenant's
consumer id is 404 on both routes, and a portal token may do neither (403).
"""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import aiohttp
import msgspec

from hookproof.engine.runtime.daemon import Engine
from hookproof.events.consumer_events import portal_stream_id
from hookproof.schemas.api import PortalSessionPage

from ..daemon import run_cli
from ..delivery.conftest import Subscriber
from ..live import Client
from .conftest import Tenant, new_tenant
from .test_portal import start_session, sub_body

ITEM_FIELDS = {"id", "consumerId", "capabilities", "creator", "createdAt", "expiresAt"}


def cli_env(db_url: str, tmp_path: Path) -> dict[str, str]:
    return {"HOOKPROOF_DATABASE_URL": db_url, "HOOKPROOF_DATA_DIR": str(tmp_path)}


async def cli(args: list[str], env: dict[str, str]) -> dict[str, Any]:
    out = await asyncio.to_thread(run_cli, [*args, "--json"], env)
    assert out.returncode == 0, out.stderr
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


async def listed(t: Tenant, consumer: str, query: str = "") -> list[dict[str, Any]]:
    """Every page of the consumer's live sessions (following nextCursor)."""
    items: list[dict[str, Any]] = []
    cursor = None
    while True:
        q = query + (f"&cursor={cursor}" if cursor else "")
        status, page = await t.call("GET", f"/v1/consumers/{consumer}/portal-sessions?{q}")
        assert status == 200, page
        items += page["items"]
        cursor = page["nextCursor"]
        if cursor is None:
            return items


async def test_revoking_a_token_ends_the_sessions_it_started(
    engine: Engine,
    base: str,
    http: aiohttp.ClientSession,
    subscriber: Subscriber,
    db_url: str,
    tmp_path: Path,
) -> None:
    acme = await new_tenant(engine, http, base, "acme")
    await acme.consumer("cust-a")
    await acme.consumer("cust-b")
    first_token_id = acme.client.token.split("_", 2)[1]
    second = await engine.tenants.issue_token(acme.tenant_id)
    acme2 = Tenant(acme.tenant_id, Client(http, base, second.token), engine)
    env = cli_env(db_url, tmp_path)

    doomed = [await start_session(acme, "cust-a"), await start_session(acme, "cust-b")]
    kept = await start_session(acme2, "cust-a")
    by_operator = await cli(["tenant", "portal-session", acme.tenant_id, "cust-a"], env)
    assert by_operator["token"].startswith("hpp_") and by_operator["consumerId"] == "cust-a"
    for s in [*doomed, kept, by_operator]:
        assert (await Client(http, base, s["token"]).call("GET", "/v1/whoami"))[0] == 200
    creators = {i["id"]: i["creator"] for i in await listed(acme2, "cust-a")}
    assert creators == {
        doomed[0]["sessionId"]: f"token:{first_token_id}",
        kept["sessionId"]: f"token:{second.token_id}",
        by_operator["sessionId"]: "operator",
    }

    revoked = await cli(["tenant", "revoke-token", first_token_id], env)
    assert revoked == {"tenantId": acme.tenant_id, "revoked": first_token_id, "sessionsEnded": 2}

    status, problem = await acme.call("GET", "/v1/consumers")
    assert status == 401 and problem["code"] == "invalid_token"
    for s in doomed:
        portal = Client(http, base, s["token"])
        status, problem = await portal.call("GET", "/v1/whoami")
        assert status == 401 and problem["code"] == "portal_session_expired", problem
        status, problem = await portal.call(
            "POST", "/v1/subscriptions", sub_body(subscriber.url("ok-late"))
        )
        assert status == 401 and problem["code"] == "portal_session_expired", problem
        events = await engine.store.read_stream(portal_stream_id(s["sessionId"]))
        assert [e.type for e in events] == ["portal.session_started", "portal.session_ended"]
        assert events[1].decode().reason == "token_revoked"  # type: ignore[attr-defined]
        assert events[1].meta().actor == "cli"
    status, subs = await acme2.call("GET", "/v1/subscriptions?consumerId=cust-a")
    assert status == 200 and subs["items"] == []  # nothing was registered by a dead session
    for s in (kept, by_operator):
        assert (await Client(http, base, s["token"]).call("GET", "/v1/whoami"))[0] == 200
    assert {i["id"] for i in await listed(acme2, "cust-a")} == {
        kept["sessionId"],
        by_operator["sessionId"],
    }
    started = await engine.store.read_stream(portal_stream_id(by_operator["sessionId"]))
    assert started[0].decode().creator == "operator"  # type: ignore[attr-defined]
    assert started[0].meta().actor == "operator:cli"


async def test_no_session_outlives_a_revocation_that_races_its_start(
    engine: Engine, base: str, http: aiohttp.ClientSession
) -> None:
    """Starts racing the revocation of their token: each is refused (401) or ended by it."""
    acme = await new_tenant(engine, http, base, "acme")
    await acme.consumer("cust-r")
    token_id = acme.client.token.split("_", 2)[1]

    async def revoke() -> str:
        await asyncio.sleep(0.01)
        return (await engine.tenants.revoke_token(token_id, actor="test")).tenant_id

    calls: list[Any] = [
        acme.call("POST", "/v1/consumers/cust-r/portal-sessions") for _ in range(12)
    ]
    answers = await asyncio.gather(*calls, revoke())
    assert answers.pop() == acme.tenant_id
    started = [out["token"] for status, out in answers if status == 201]
    refused = [out["code"] for status, out in answers if status != 201]
    assert set(refused) <= {"invalid_token"} and len(started) + len(refused) == 12
    for token in started:
        status, problem = await Client(http, base, token).call("GET", "/v1/whoami")
        assert status == 401 and problem["code"] == "portal_session_expired"


async def test_list_and_end_all_are_paged_isolated_and_hold_no_token(
    engine: Engine, base: str, http: aiohttp.ClientSession
) -> None:
    acme = await new_tenant(engine, http, base, "acme")
    globex = await new_tenant(engine, http, base, "globex")
    await acme.consumer("cust-a")
    await acme.consumer("cust-b")
    await globex.consumer("cust-a")  # the same id at another tenant: its own sessions
    mine = [
        await start_session(acme, "cust-a", capabilities=["read"], ttlSeconds=600) for _ in range(5)
    ]
    other = await start_session(acme, "cust-b")
    theirs = await start_session(globex, "cust-a")

    pages = []
    cursor = None
    while True:
        q = "?limit=2" + (f"&cursor={cursor}" if cursor else "")
        async with http.get(
            f"{base}/v1/consumers/cust-a/portal-sessions{q}",
            headers={"Authorization": f"Bearer {acme.client.token}"},
        ) as r:
            raw = await r.text()
            assert r.status == 200, raw
        for s in [*mine, other, theirs]:  # no token material, of any session
            secret = s["token"].split("_", 2)[2]  # hpp_<24 hex>_<secret>; the secret may hold "_"
            assert s["token"] not in raw and secret not in raw
        page = json.loads(raw)
        msgspec.convert(page, PortalSessionPage)  # the documented body, nothing else
        pages.append(page["items"])
        cursor = page["nextCursor"]
        if cursor is None:
            break
    assert [len(p) for p in pages] == [2, 2, 1]
    items = [i for p in pages for i in p]
    assert [i["id"] for i in items] == [s["sessionId"] for s in mine]  # oldest first
    token_id = acme.client.token.split("_", 2)[1]
    for item, s in zip(items, mine, strict=True):
        assert set(item) == ITEM_FIELDS
        assert item["consumerId"] == "cust-a" and item["capabilities"] == ["read"]
        assert item["creator"] == f"token:{token_id}" and item["expiresAt"] == s["expiresAt"]
    assert [i["id"] for i in await listed(globex, "cust-a")] == [theirs["sessionId"]]

    for t, method in [(globex, "GET"), (globex, "DELETE")]:  # acme's consumers do not exist
        status, problem = await t.call(method, "/v1/consumers/cust-b/portal-sessions")
        assert status == 404 and problem["code"] == "consumer_not_found", problem
    for path, code in [
        ("/v1/consumers/cust-a/portal-sessions?limit=0", "invalid_limit"),
        ("/v1/consumers/cust-a/portal-sessions?cursor=nope", "invalid_cursor"),
        ("/v1/consumers/" + "x" * 65 + "/portal-sessions", "invalid_id"),
    ]:
        status, problem = await acme.call("GET", path)
        assert status == 400 and problem["code"] == code, problem
    portal = Client(http, base, mine[0]["token"])
    for method in ("GET", "DELETE"):
        status, problem = await portal.call(method, "/v1/consumers/cust-a/portal-sessions")
        assert status == 403 and problem["code"] == "portal_scope", problem

    status, out = await acme.call("DELETE", "/v1/consumers/cust-a/portal-sessions")
    assert (status, out) == (200, {"ended": 5})
    for s in mine:
        status, problem = await Client(http, base, s["token"]).call("GET", "/v1/whoami")
        assert status == 401 and problem["code"] == "portal_session_expired"
        events = await engine.store.read_stream(portal_stream_id(s["sessionId"]))
        assert [e.type for e in events] == ["portal.session_started", "portal.session_ended"]
        assert events[1].decode().reason == "ended"  # type: ignore[attr-defined]
        assert events[1].meta().actor == f"tenant:{acme.tenant_id}"
    assert await listed(acme, "cust-a") == []
    assert (await acme.call("DELETE", "/v1/consumers/cust-a/portal-sessions")) == (
        200,
        {"ended": 0},
    )
    for s in (other, theirs):  # another consumer's, another tenant's: untouched
        assert (await Client(http, base, s["token"]).call("GET", "/v1/whoami"))[0] == 200


async def test_expired_sessions_are_neither_listed_nor_ended(
    engine: Engine, base: str, http: aiohttp.ClientSession
) -> None:
    ttl = 60
    acme = await new_tenant(engine, http, base, "acme")
    await acme.consumer("cust-a")
    short = await start_session(acme, "cust-a", ttlSeconds=ttl)
    long = await start_session(acme, "cust-a", ttlSeconds=ttl * 10)
    portal = engine.api.portal
    real = portal.clock
    portal.clock = lambda: real() + timedelta(seconds=ttl + 1)
    try:
        assert [i["id"] for i in await listed(acme, "cust-a")] == [long["sessionId"]]
        status, out = await acme.call("DELETE", "/v1/consumers/cust-a/portal-sessions")
        assert (status, out) == (200, {"ended": 1})  # the expired one needs no ending
    finally:
        portal.clock = real
    events = await engine.store.read_stream(portal_stream_id(short["sessionId"]))
    assert [e.type for e in events] == ["portal.session_started"]


async def test_a_session_of_no_recorded_creator_ends_with_any_token_of_its_tenant(
    engine: Engine, base: str, http: aiohttp.ClientSession
) -> None:
    """A session started before creators were recorded (its row as migration 0891 leaves it)
    is listed as ``unknown`` and ends when any token of its tenant is revoked: its token is
    not known, so no revocation may leave it live."""
    acme = await new_tenant(engine, http, base, "acme")
    globex = await new_tenant(engine, http, base, "globex")
    await acme.consumer("cust-a")
    await globex.consumer("cust-a")
    old = await start_session(acme, "cust-a")
    foreign = await start_session(globex, "cust-a")
    await engine.pool.execute(
        "UPDATE portal_sessions SET creator = NULL WHERE session_id = ANY($1::text[])",
        [old["sessionId"], foreign["sessionId"]],
    )
    [item] = await listed(acme, "cust-a")
    assert item["creator"] == "unknown"
    spare = await engine.tenants.issue_token(acme.tenant_id)
    revoked = await engine.tenants.revoke_token(spare.token_id, actor="test")
    assert revoked.sessions_ended == [old["sessionId"]]
    status, problem = await Client(http, base, old["token"]).call("GET", "/v1/whoami")
    assert status == 401 and problem["code"] == "portal_session_expired"
    assert (await Client(http, base, foreign["token"]).call("GET", "/v1/whoami"))[0] == 200
