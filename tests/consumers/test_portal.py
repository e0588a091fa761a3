"""Portal sessions over the API: exactly the scope of DESIGN section 11 ("Portal sessions").

A consumer's portal token reads and manages its own consumer's subscriptions, deliveries,
timelines and dead letters; every other route is 403 ``portal_scope``, every id of another
consumer (or of no consumer) is 404; expiry and end are 401 ``portal_session_expired``; what
it does is recorded with the actor ``portal:<sessionId>``.
"""

from __future__ import annotations

import asyncio
import base64
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import aiohttp
import pytest

from hookproof.engine.runtime.daemon import Engine
from hookproof.events.consumer_events import portal_stream_id

from ..delivery.conftest import Subscriber, dispatch_all
from ..delivery.stats_support import fold_stats, totals
from ..live import ADMIN_TOKEN, Client
from .conftest import Tenant, event, new_tenant


@dataclass
class World:
    acme: Tenant
    portal: Client  # consumer cust-a's session, all capabilities
    session_id: str
    sub_a: str
    dead_a: str
    sub_b: str
    sub_none: str
    did_a: str
    dead_did_a: str
    did_b: str
    did_none: str


INVOICE_TYPE = {
    "description": "An invoice was paid in full",
    "versions": {
        "1": {
            "schema": {"type": "object", "properties": {"amount": {"type": "integer"}}},
            "example": {"amount": 4200},
        }
    },
}


async def start_session(t: Tenant, consumer: str, **body: Any) -> dict[str, Any]:
    status, out = await t.call("POST", f"/v1/consumers/{consumer}/portal-sessions", body or None)
    assert status == 201, out
    return dict(out)


@pytest.fixture
async def world(
    engine: Engine,
    base: str,
    http: aiohttp.ClientSession,
    subscriber: Subscriber,
) -> World:
    acme = await new_tenant(engine, http, base, "acme")
    await acme.consumer("cust-a")
    await acme.consumer("cust-b")
    sub_a = await acme.subscribe(subscriber.url("ok-a"), "cust-a")
    dead_a = await acme.subscribe(subscriber.url("fail500-a"), "cust-a")
    sub_b = await acme.subscribe(subscriber.url("fail500-b"), "cust-b")
    sub_none = await acme.subscribe(subscriber.url("fail500-none"))
    _, out_a = await acme.call("POST", "/v1/events", event("evt-a", "cust-a"))
    _, out_b = await acme.call("POST", "/v1/events", event("evt-b", "cust-b"))
    _, out_n = await acme.call("POST", "/v1/events", event("evt-none"))
    while await dispatch_all(engine):
        pass
    by_sub = {d["subscriptionId"]: d["deliveryId"] for d in out_a["deliveries"]}
    assert (await acme.call("PUT", "/v1/event-types/invoice.paid", INVOICE_TYPE))[0] == 200
    session = await start_session(acme, "cust-a")
    return World(
        acme=acme,
        portal=Client(http, base, session["token"]),
        session_id=session["sessionId"],
        sub_a=sub_a,
        dead_a=dead_a,
        sub_b=sub_b,
        sub_none=sub_none,
        did_a=by_sub[sub_a],
        dead_did_a=by_sub[dead_a],
        did_b=out_b["deliveries"][0]["deliveryId"],
        did_none=out_n["deliveries"][0]["deliveryId"],
    )


def sub_body(url: str, **over: Any) -> dict[str, Any]:
    return {
        "endpoint": url,
        "topics": ["order.created"],
        "eventVersions": [1],
        "region": "eu",
        "signatureAlgorithm": "hmac-sha256",
        "owner": "customer",
        **over,
    }


async def test_session_answer_and_whoami(world: World, engine: Engine, base: str) -> None:
    status, who = await world.portal.call("GET", "/v1/whoami")
    assert status == 200
    assert who["kind"] == "portal" and who["consumerId"] == "cust-a"
    assert who["tenantId"] == world.acme.tenant_id and who["sessionId"] == world.session_id
    assert who["capabilities"] == ["manage", "read", "replay"]
    session = await start_session(world.acme, "cust-a", ttlSeconds=120, capabilities=["read"])
    assert session["sessionId"].startswith("ps_") and session["token"].startswith("hpp_")
    assert session["url"].endswith("/console#portal=" + session["token"])
    assert session["capabilities"] == ["read"]
    # only a digest is stored, and no event carries the token
    rows = await engine.pool.fetch("SELECT * FROM portal_sessions")
    secret = session["token"].split("_", 2)[2]  # hpp_<24 hex>_<secret>
    assert all(secret.encode() not in bytes(r["secret_sha256"]) for r in rows)
    assert all(secret not in str(dict(r)) for r in rows)
    started = await engine.store.read_stream(portal_stream_id(session["sessionId"]))
    assert [e.type for e in started] == ["portal.session_started"]
    assert secret.encode() not in started[0].data
    assert started[0].meta().actor == f"tenant:{world.acme.tenant_id}"


@pytest.mark.parametrize(
    "body",
    [
        {"ttlSeconds": 59},
        {"ttlSeconds": 86401},
        {"capabilities": []},
        {"capabilities": ["read", "read"]},
        {"capabilities": ["admin"]},
        {"unknown": 1},
    ],
)
async def test_session_bad_bodies(world: World, body: dict[str, Any]) -> None:
    status, problem = await world.acme.call("POST", "/v1/consumers/cust-a/portal-sessions", body)
    assert status == 400, problem


async def test_reads_show_only_its_consumers_things(world: World) -> None:
    p = world.portal
    status, subs = await p.call("GET", "/v1/subscriptions")
    assert status == 200 and {s["id"] for s in subs["items"]} == {world.sub_a, world.dead_a}
    assert (await p.call("GET", "/v1/subscriptions?consumerId=cust-b"))[1]["items"] == subs["items"]
    for path in (
        f"/v1/subscriptions/{world.sub_a}",
        f"/v1/subscriptions/{world.sub_a}/history",
        f"/v1/subscriptions/{world.sub_a}/timeline",
        f"/v1/deliveries/{world.did_a}",
        f"/v1/deliveries/{world.did_a}/timeline",
    ):
        status, body = await p.call("GET", path)
        assert status == 200, (path, body)
    status, deliveries = await p.call("GET", "/v1/deliveries")
    assert {d["deliveryId"] for d in deliveries["items"]} == {world.did_a, world.dead_did_a}
    status, foreign = await p.call("GET", f"/v1/deliveries?subscriptionId={world.sub_b}")
    assert status == 200 and foreign["items"] == []
    status, dead = await p.call("GET", "/v1/dead-letters")
    assert [d["deliveryId"] for d in dead["items"]] == [world.dead_did_a]
    status, catalogue = await p.call("GET", "/v1/event-types")  # the tenant's catalogue
    assert status == 200 and [i["topic"] for i in catalogue["items"]] == ["invoice.paid"]
    status, one = await p.call("GET", "/v1/event-types/invoice.paid")
    assert status == 200 and one["versions"]["1"]["example"] == {"amount": 4200}
    assert (await p.call("GET", "/v1/event-types/openapi.json"))[0] == 200


# Each refusal of the scope on its own: another consumer's or a consumer-less id is 404 (it
# does not exist for the portal), what a portal never does is 403 portal_scope.
NOT_FOUND = [
    ("GET", "/v1/subscriptions/{sub_b}"),
    ("GET", "/v1/subscriptions/{sub_none}"),
    ("GET", "/v1/subscriptions/{sub_b}/history"),
    ("GET", "/v1/subscriptions/{sub_none}/timeline"),
    ("PATCH", "/v1/subscriptions/{sub_b}"),
    ("POST", "/v1/subscriptions/{sub_none}/revoke"),
    ("POST", "/v1/subscriptions/{sub_b}/challenge"),
    ("POST", "/v1/subscriptions/{sub_none}/secret/rotate"),
    ("POST", "/v1/subscriptions/{sub_b}/recover"),
    ("GET", "/v1/deliveries/{did_b}"),
    ("GET", "/v1/deliveries/{did_none}"),
    ("GET", "/v1/deliveries/{did_b}/timeline"),
    ("POST", "/v1/deliveries/{did_b}/replay"),
    ("POST", "/v1/deliveries/{did_none}/skip"),
]
FORBIDDEN = [
    ("POST", "/v1/events"),
    ("POST", "/v1/events/batch"),
    ("GET", "/v1/events/evt-a"),
    ("GET", "/v1/consumers"),
    ("POST", "/v1/consumers"),
    ("GET", "/v1/consumers/cust-a"),
    ("GET", "/v1/consumers/cust-b"),
    ("PATCH", "/v1/consumers/cust-a"),
    ("POST", "/v1/consumers/cust-a/disable"),
    ("POST", "/v1/consumers/cust-a/portal-sessions"),
    ("GET", "/v1/consumers/cust-a/portal-sessions"),
    ("DELETE", "/v1/consumers/cust-a/portal-sessions"),
    ("DELETE", "/v1/portal-sessions/{session_id}"),
    ("POST", "/v1/subscriptions/{sub_a}/suspend"),
    ("POST", "/v1/subscriptions/{sub_a}/resume"),
    ("GET", "/v1/gates"),
    ("GET", "/v1/rollouts"),
    ("POST", "/v1/rollouts"),
    ("GET", "/metrics"),
    ("POST", "/v1/keys/rotate"),
    ("POST", "/v1/tenants"),
    ("PUT", "/v1/event-types/order.created"),
]


def _path(world: World, template: str) -> str:
    return template.format(**vars(world))


@pytest.mark.parametrize(("method", "template"), NOT_FOUND)
async def test_other_consumers_ids_do_not_exist(world: World, method: str, template: str) -> None:
    body = {"since": "2026-01-01T00:00:00Z"} if template.endswith("recover") else None
    status, problem = await world.portal.call(method, _path(world, template), body)
    assert status == 404, problem
    assert problem["code"] in ("subscription_not_found", "delivery_not_found")


@pytest.mark.parametrize(("method", "template"), FORBIDDEN)
async def test_beyond_the_scope_is_403(world: World, method: str, template: str) -> None:
    status, problem = await world.portal.call(method, _path(world, template), {"x": 1})
    assert status == 403 and problem["code"] == "portal_scope", problem


async def test_register_for_another_consumer_is_403(world: World, subscriber: Subscriber) -> None:
    status, problem = await world.portal.call(
        "POST", "/v1/subscriptions", sub_body(subscriber.url("ok-x"), consumerId="cust-b")
    )
    assert status == 403 and problem["code"] == "portal_scope"
    status, listed = await world.acme.call("GET", "/v1/subscriptions?consumerId=cust-b")
    assert [s["id"] for s in listed["items"]] == [world.sub_b]


@pytest.mark.parametrize(
    ("capabilities", "method", "template"),
    [
        (["read"], "PATCH", "/v1/subscriptions/{sub_a}"),
        (["read"], "POST", "/v1/subscriptions"),
        (["read"], "POST", "/v1/subscriptions/{sub_a}/secret/rotate"),
        (["read"], "POST", "/v1/deliveries/{dead_did_a}/replay"),
        (["read", "manage"], "POST", "/v1/subscriptions/{sub_a}/recover"),
        (["replay"], "GET", "/v1/subscriptions"),
        (["replay"], "GET", "/v1/event-types"),
        (["manage"], "POST", "/v1/deliveries/{dead_did_a}/skip"),
    ],
)
async def test_capabilities_bound_the_session(
    world: World,
    base: str,
    http: aiohttp.ClientSession,
    capabilities: list[str],
    method: str,
    template: str,
) -> None:
    session = await start_session(world.acme, "cust-a", capabilities=capabilities)
    limited = Client(http, base, session["token"])
    status, problem = await limited.call(method, _path(world, template), {"x": 1})
    assert status == 403 and problem["code"] == "portal_scope", problem


async def test_actions_carry_the_portal_actor(
    world: World, engine: Engine, subscriber: Subscriber
) -> None:
    p = world.portal
    actor = f"portal:{world.session_id}"
    # Add endpoint: the consumer is set to its own; the challenge runs; the secret shown once
    status, sub = await p.call("POST", "/v1/subscriptions", sub_body(subscriber.url("ok-new")))
    assert status == 201, sub
    assert sub["consumerId"] == "cust-a" and sub["secret"]
    await engine.drain()  # the first challenge: this subscriber did not know the secret yet
    subscriber.secrets["ok-new"] = base64.b64decode(sub["secret"])
    status, sub = await p.call("POST", f"/v1/subscriptions/{sub['id']}/challenge")
    assert status == 200 and sub["challenge"]["passed"], sub
    status, sub = await p.call("GET", f"/v1/subscriptions/{sub['id']}")
    assert sub["state"] == "ACTIVE" and "secret" not in sub
    status, history = await p.call("GET", f"/v1/subscriptions/{sub['id']}/history")
    assert history["items"][0]["actor"] == actor
    # egress rules apply to the portal as to anyone
    status, problem = await p.call(
        "POST", "/v1/subscriptions", sub_body("http://127.0.0.1:1/plain")
    )
    assert status == 400, problem
    # rotate the secret: a new one, shown once
    status, rotated = await p.call("POST", f"/v1/subscriptions/{sub['id']}/secret/rotate")
    assert status == 201, rotated
    # a dead letter replayed from the portal; the timeline names the session
    subscriber.modes["fail500-a"] = "ok"
    status, replayed = await p.call("POST", f"/v1/deliveries/{world.dead_did_a}/replay")
    assert status == 202, replayed
    status, timeline = await p.call("GET", f"/v1/deliveries/{world.dead_did_a}/timeline")
    replay = [e for e in timeline["entries"] if e["type"] == "delivery.replay_requested"]
    assert [e["actor"] for e in replay] == [actor]
    status, revoked = await p.call("POST", f"/v1/subscriptions/{sub['id']}/revoke")
    assert status == 200 and revoked["state"] == "REVOKED"
    status, timeline = await p.call("GET", f"/v1/subscriptions/{sub['id']}/timeline")
    assert {e["actor"] for e in timeline["entries"]} >= {actor}
    assert timeline["entries"][-1]["actor"] == actor


async def test_expiry_is_401(world: World, engine: Engine) -> None:
    session = await start_session(world.acme, "cust-a", ttlSeconds=60)
    client = Client(world.portal.http, world.portal.base, session["token"])
    assert (await client.call("GET", "/v1/subscriptions"))[0] == 200
    portal = engine.api.portal
    real = portal.clock
    portal.clock = lambda: real() + timedelta(seconds=61)
    try:
        for method, path in [("GET", "/v1/subscriptions"), ("POST", "/v1/events")]:
            status, problem = await client.call(method, path, {})
            assert status == 401 and problem["code"] == "portal_session_expired", problem
        # the longer-lived session is still good
        assert (await world.portal.call("GET", "/v1/subscriptions"))[0] == 200
    finally:
        portal.clock = real


async def test_end_is_401_at_once_and_an_event(world: World, engine: Engine) -> None:
    status, _ = await world.acme.call("DELETE", f"/v1/portal-sessions/{world.session_id}")
    assert status == 204
    status, problem = await world.portal.call("GET", "/v1/whoami")
    assert status == 401 and problem["code"] == "portal_session_expired"
    assert (await world.acme.call("DELETE", f"/v1/portal-sessions/{world.session_id}"))[0] == 204
    events = await engine.store.read_stream(portal_stream_id(world.session_id))
    assert [e.type for e in events] == ["portal.session_started", "portal.session_ended"]
    assert events[1].meta().actor == f"tenant:{world.acme.tenant_id}"
    status, problem = await world.acme.call("DELETE", "/v1/portal-sessions/ps_" + "0" * 24)
    assert status == 404 and problem["code"] == "portal_session_not_found"


async def test_disabling_the_consumer_ends_its_sessions(world: World, engine: Engine) -> None:
    other = await start_session(world.acme, "cust-b")
    status, _ = await world.acme.call("POST", "/v1/consumers/cust-a/disable")
    assert status == 200
    status, problem = await world.portal.call("GET", "/v1/subscriptions")
    assert status == 401 and problem["code"] == "portal_session_expired"
    events = await engine.store.read_stream(portal_stream_id(world.session_id))
    assert events[-1].decode().reason == "consumer_disabled"  # type: ignore[attr-defined]
    b = Client(world.portal.http, world.portal.base, other["token"])
    assert (await b.call("GET", "/v1/subscriptions"))[0] == 200
    status, problem = await world.acme.call("POST", "/v1/consumers/cust-a/portal-sessions")
    assert status == 400 and problem["code"] == "consumer_disabled"


async def test_no_session_outlives_a_disable_that_races_its_start(world: World) -> None:
    """Starts racing a disable: each either is refused or is ended by it, never left live."""
    acme = world.acme
    assert (await acme.call("POST", "/v1/consumers", {"id": "cust-r", "name": "R"}))[0] == 201
    calls = [acme.call("POST", "/v1/consumers/cust-r/portal-sessions") for _ in range(12)]
    calls.insert(6, acme.call("POST", "/v1/consumers/cust-r/disable"))
    answers = await asyncio.gather(*calls)
    assert answers.pop(6)[0] == 200
    started = [out["token"] for status, out in answers if status == 201]
    refused = [out["code"] for status, out in answers if status != 201]
    assert set(refused) <= {"consumer_disabled"} and len(started) + len(refused) == 12
    for token in started:
        portal = Client(world.portal.http, world.portal.base, token)
        status, problem = await portal.call("GET", "/v1/subscriptions")
        assert status == 401 and problem["code"] == "portal_session_expired"


async def test_another_tenant_cannot_end_a_session(
    world: World, engine: Engine, base: str, http: aiohttp.ClientSession
) -> None:
    globex = await new_tenant(engine, http, base, "globex")
    status, problem = await globex.call("DELETE", f"/v1/portal-sessions/{world.session_id}")
    assert status == 404 and problem["code"] == "portal_session_not_found"
    assert (await world.portal.call("GET", "/v1/whoami"))[0] == 200


@pytest.mark.parametrize(
    "token",
    [
        "hpp_" + "0" * 24 + "_" + "x" * 43,  # well formed, no such session
        "hpp_nothex_" + "x" * 43,
        "hpp_",
    ],
)
async def test_unknown_portal_tokens_are_401(world: World, token: str) -> None:
    status, problem = await Client(world.portal.http, world.portal.base, token).call(
        "GET", "/v1/subscriptions"
    )
    assert status == 401 and problem["code"] == "invalid_token", problem


async def test_wrong_secret_for_a_real_session_is_401(world: World) -> None:
    forged = "_".join(world.portal.token.split("_", 2)[:2]) + "_" + "y" * 43
    status, problem = await Client(world.portal.http, world.portal.base, forged).call(
        "GET", "/v1/whoami"
    )
    assert status == 401 and problem["code"] == "invalid_token"


@pytest.mark.parametrize(
    "path",
    ["/v1/subscriptions/sub_nothex", "/v1/deliveries/dlv_short", "/v1/deliveries/x/timeline"],
)
async def test_ids_outside_their_format_are_400_under_a_portal(world: World, path: str) -> None:
    status, problem = await world.portal.call("GET", path)
    assert status == 400 and problem["code"] == "invalid_id", problem


async def test_operator_token_is_not_a_portal(world: World) -> None:
    op = Client(world.portal.http, world.portal.base, ADMIN_TOKEN)
    assert (await op.call("GET", "/v1/whoami")) == (200, {"kind": "operator"})


async def test_attempt_stats_count_each_attempt_by_its_outcome(
    world: World, engine: Engine
) -> None:
    await fold_stats(engine.store)  # the projector's pass (the daemon: every 5 s)
    status, ok = await world.portal.call("GET", f"/v1/subscriptions/{world.sub_a}/attempt-stats")
    assert status == 200 and len(ok["buckets"]) == 24
    assert totals(ok) == {"ENDPOINT_ACCEPTED": 1}
    status, dead = await world.portal.call("GET", f"/v1/subscriptions/{world.dead_a}/attempt-stats")
    assert totals(dead) == {"DEAD_LETTER": 1}
    status, problem = await world.portal.call(
        "GET", f"/v1/subscriptions/{world.sub_b}/attempt-stats"
    )
    assert status == 404 and problem["code"] == "subscription_not_found"
    status, tenant_view = await world.acme.call(
        "GET", f"/v1/subscriptions/{world.sub_b}/attempt-stats"
    )
    assert status == 200 and totals(tenant_view) == {"DEAD_LETTER": 1}


def _stats_path(*ids: str) -> str:
    return "/v1/attempt-stats?" + "&".join(f"subscriptionId={i}" for i in ids)


async def test_attempt_stats_of_a_whole_view_in_one_call_within_the_scope(
    world: World, engine: Engine, http: aiohttp.ClientSession, base: str
) -> None:
    """``GET /v1/attempt-stats``: each item is what the single route answers, in the order
    asked; an id that is not the caller's is 404 for the whole call, as it is alone."""
    await fold_stats(engine.store)
    p, acme = world.portal, world.acme
    status, both = await p.call("GET", _stats_path(world.dead_a, world.sub_a, world.dead_a))
    assert status == 200, both
    singles = [
        (await p.call("GET", f"/v1/subscriptions/{sid}/attempt-stats"))[1]
        for sid in (world.dead_a, world.sub_a)
    ]
    assert both == {"since": singles[0]["since"], "items": singles}
    # a portal: another consumer's or a consumer-less subscription does not exist for it
    for foreign in (world.sub_b, world.sub_none):
        status, problem = await p.call("GET", _stats_path(world.sub_a, foreign))
        assert status == 404 and problem["code"] == "subscription_not_found", problem
    # the tenant sees all of its own, another tenant none of them
    status, all_four = await acme.call(
        "GET", _stats_path(world.sub_a, world.dead_a, world.sub_b, world.sub_none)
    )
    assert status == 200 and [totals(i) for i in all_four["items"]] == [
        {"ENDPOINT_ACCEPTED": 1},
        {"DEAD_LETTER": 1},
        {"DEAD_LETTER": 1},
        {"DEAD_LETTER": 1},
    ]
    other = await new_tenant(engine, http, base, "other")
    status, problem = await other.call("GET", _stats_path(world.sub_a))
    assert status == 404 and problem["code"] == "subscription_not_found"
    # a read-only session may ask; bad lists are 400 with a code, never a 5xx
    reader = await start_session(acme, "cust-a", capabilities=["read"])
    read_only = Client(world.portal.http, world.portal.base, reader["token"])
    assert (await read_only.call("GET", _stats_path(world.sub_a)))[0] == 200
    for path, code in (
        ("/v1/attempt-stats", "invalid_subscription_ids"),
        (_stats_path(*(f"sub_{i:024x}" for i in range(101))), "invalid_subscription_ids"),
        (_stats_path("sub_nothex"), "invalid_id"),
        (_stats_path(world.sub_a, "x" * 300), "invalid_id"),
    ):
        for client in (p, acme):
            status, problem = await client.call("GET", path)
            assert status == 400 and problem["code"] == code, (path, problem)
