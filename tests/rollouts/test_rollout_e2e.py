"""Rollouts end to end: a real engine, real Postgres, real HTTPS subscribers verifying with the
SDK. Every stage is checked by the headers each subscriber actually receives."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import msgspec
import pytest
from aiohttp import web

from hookproof.engine.rollouts import bucket_of
from hookproof.engine.runtime.daemon import Engine
from hookproof.schemas.api import SubscriptionCreate
from hookproof_subscriber import JwksKeyResolver, averify_any, build_challenge_response
from tests.receipts.harness import Api, HookServer, dispatch_all, publish

SW, SIG = "standard-webhooks.v1", "hookproof.sig.v1"


@dataclass
class Endpoint:
    """A subscriber that verifies every request with the SDK, keeps what it received and
    accepts it when a profile it trusts verified."""

    url: str
    keys: JwksKeyResolver
    accept: tuple[str, ...] = (SW, SIG)
    seen: list[dict[str, Any]] = field(default_factory=list)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        headers = {k.lower(): v for k, v in request.headers.items()}
        challenge = headers.get("webhook-id", "").startswith("chl_")
        res = await averify_any(
            "POST",
            self.url,
            headers,
            body,
            keys=self.keys,
            accept=self.accept,
            accept_not_before=challenge,  # deliveries: only keys published as signing
        )
        if challenge:
            return web.Response(
                body=build_challenge_response(body), content_type="application/json"
            )
        self.seen.append(
            {
                "event": headers.get("webhook-id"),
                "ok": res.ok,
                "standard": "webhook-signature" in headers,
                "sig": "signature" in headers,
                "verified": res.verified,
            }
        )
        return web.Response(status=204 if res.ok else 401)

    def last(self) -> dict[str, Any]:
        return self.seen[-1]


async def _endpoints(
    engine: Engine,
    api: Api,
    hooks: HookServer,
    tenant: str,
    n: int,
    refresh_s: float = 10.0,
    **over: Any,
) -> dict[str, Endpoint]:
    out = {}
    keys = JwksKeyResolver.for_engine(api.base, min_refresh_interval=refresh_s)
    for i in range(n):
        ep = Endpoint(hooks.url(f"e{i}"), keys, **over)
        hooks.mount(f"e{i}", ep.handle)
        body = {
            "endpoint": ep.url,
            "topics": ["order.created"],
            "eventVersions": [1],
            "region": "eu",
            "signatureAlgorithm": "ed25519",
            "owner": "team",
            "signatureProfile": SW,
            "retryPolicy": {"maxAttempts": 1},
        }
        state, _ = await engine.subscriptions.register(
            tenant, msgspec.convert(body, SubscriptionCreate), actor="test"
        )
        outcome = await engine.services.challenger.run(state.subscription_id, actor="test")
        assert outcome["passed"], outcome
        out[state.subscription_id] = ep
    return out


async def _round(engine: Engine, tenant: str, name: str) -> None:
    await publish(engine, tenant, name)
    while await dispatch_all(engine):
        pass


async def test_full_rollout_standard_webhooks_to_sig_v1_stage_by_stage(
    engine: Engine, api: Api, hooks: HookServer, tenant_token: tuple[str, str]
) -> None:
    tenant, _ = tenant_token
    eps = await _endpoints(engine, api, hooks, tenant, 2)
    internal, other = list(eps)
    svc = engine.services.rollouts
    view = await svc.create(
        target_kind="signatureProfile",
        target=SIG,
        subscriptions=None,
        internal=[internal],
        dual_window_s=1.0,
        actor="test",
    )
    rid = view.rollout_id

    def got(sid: str) -> tuple[bool, bool, tuple[str, ...]]:
        last = eps[sid].last()
        return last["standard"], last["sig"], last["verified"]

    # SHADOW: nobody sees anything new; the target signature was made and verified beside
    await _round(engine, tenant, "evt-shadow")
    assert got(internal) == got(other) == (True, False, (SW,))
    figs = await svc.figures(rid)
    assert figs["shadow"] == {"checked": 2, "mismatches": 0}
    # INTERNAL: the internal subscription gets both, each verifying on its own
    await svc.advance(rid, "INTERNAL", None, actor="test")
    await _round(engine, tenant, "evt-internal")
    assert got(internal) == (True, True, (SIG, SW))
    assert got(other) == (True, False, (SW,))
    assert (await svc.figures(rid))["internal"]["dualSigned"] == 1
    # CUTOVER 100%: every subscription switched: both signatures for the dual window...
    await svc.advance(rid, "CUTOVER", 100, actor="test")
    await _round(engine, tenant, "evt-cutover-dual")
    assert got(internal) == got(other) == (True, True, (SIG, SW))
    # ...then the target alone: dual signing never outlives the window
    await asyncio.sleep(1.1)
    await _round(engine, tenant, "evt-cutover-target")
    assert got(internal) == got(other) == (False, True, (SIG,))
    await svc.advance(rid, "COMPLETE", None, actor="test")
    for sid in eps:  # written back: the tenant sees the profile it now receives
        state = await engine.subscriptions.get(tenant, sid)
        assert (state.config.signature_profile, state.generation) == (SIG, 1)
    await _round(engine, tenant, "evt-complete")
    assert got(internal) == got(other) == (False, True, (SIG,))
    figs = await svc.figures(rid)
    assert figs["cutover"]["switched"] == 2 and figs["cutover"]["acceptance"] == 1.0
    from hookproof.engine.audit.gates import gate_report

    async with engine.pool.acquire() as conn:
        [gate] = [g for g in await gate_report(conn) if g.name == f"rollout:{rid}"]
    assert (gate.status, gate.examples) == ("pass", [])  # stages in order, dual within window
    # every admission recorded the stage it was signed under
    rows = await engine.pool.fetch(
        "SELECT convert_from(data, 'UTF8')::jsonb AS d FROM events "
        "WHERE type = 'delivery.attempt_admitted' ORDER BY global_position"
    )
    stages = [(msgspec.json.decode(r["d"]) if isinstance(r["d"], str) else r["d"]) for r in rows]
    assert [s["rollout_stage"] for s in stages] == ["SHADOW"] * 2 + ["INTERNAL"] * 2 + [
        "CUTOVER"
    ] * 4 + ["COMPLETE"] * 2


@pytest.mark.parametrize("percents", [(10, 50, 100)])
async def test_bucketed_cutover_switches_exactly_the_buckets_below_the_percent(
    engine: Engine,
    api: Api,
    hooks: HookServer,
    tenant_token: tuple[str, str],
    percents: tuple[int, ...],
) -> None:
    tenant, _ = tenant_token
    eps = await _endpoints(engine, api, hooks, tenant, 12)
    svc = engine.services.rollouts
    rid = (
        await svc.create(
            target_kind="signatureProfile",
            target=SIG,
            subscriptions=None,
            internal=[],
            dual_window_s=3600.0,
            actor="test",
        )
    ).rollout_id
    await svc.advance(rid, "INTERNAL", None, actor="test")
    for p in percents:
        await svc.advance(rid, "CUTOVER", p, actor="test")
        await _round(engine, tenant, f"evt-{p}")
        switched = {sid for sid, ep in eps.items() if ep.last()["sig"]}
        assert switched == {sid for sid in eps if bucket_of(sid) < p}, p
        assert all(ep.last()["standard"] for ep in eps.values())  # dual window: both
        assert (await svc.figures(rid))["cutover"]["switched"] == len(switched)


async def test_auto_pause_when_switched_subscriptions_fail(
    engine: Engine, api: Api, hooks: HookServer, tenant_token: tuple[str, str]
) -> None:
    tenant, _ = tenant_token
    # subscribers that only know Standard Webhooks: the target alone fails them (401)
    eps = await _endpoints(engine, api, hooks, tenant, 4, accept=(SW,))
    svc = engine.services.rollouts
    rid = (
        await svc.create(
            target_kind="signatureProfile",
            target=SIG,
            subscriptions=None,
            internal=[],
            dual_window_s=0.0,
            actor="test",
        )
    ).rollout_id
    for i in range(5):  # the baseline: accepted under SHADOW
        await _round(engine, tenant, f"evt-base-{i}")
    await svc.advance(rid, "INTERNAL", None, actor="test")
    await svc.advance(rid, "CUTOVER", 100, actor="test")
    for i in range(49):  # 196 switched attempts: not judged yet
        await _round(engine, tenant, f"evt-cut-{i}")
    assert (await svc.check(rid)).state == "RUNNING"
    await _round(engine, tenant, "evt-cut-49")  # the 200th
    view = await svc.check(rid)
    assert (view.state, view.pause_reason) == ("PAUSED", "acceptance_below_baseline")
    figs = await svc.figures(rid)
    assert figs["cutover"]["decidedAttempts"] == 200 and figs["cutover"]["acceptance"] == 0.0
    assert figs["cutover"]["baselineAcceptance"] == 1.0
    assert all(not ep.last()["standard"] for ep in eps.values())
    # the rollback returns them to what they verify
    await svc.rollback(rid, actor="test")
    await _round(engine, tenant, "evt-after")
    assert all(ep.last() == {**ep.last(), "standard": True, "sig": False} for ep in eps.values())


async def test_worker_delayed_across_a_stage_change_signs_by_its_admission(
    engine: Engine, api: Api, hooks: HookServer, tenant_token: tuple[str, str]
) -> None:
    tenant, _ = tenant_token
    eps = await _endpoints(engine, api, hooks, tenant, 1)
    [(sid, ep)] = eps.items()
    svc = engine.services.rollouts
    rid = (
        await svc.create(
            target_kind="signatureProfile",
            target=SIG,
            subscriptions=None,
            internal=[sid],
            dual_window_s=3600.0,
            actor="test",
        )
    ).rollout_id
    await svc.advance(rid, "INTERNAL", None, actor="test")
    d = engine.services.dispatcher
    await publish(engine, tenant, "evt-held")
    [job] = await d.claim()  # admitted under INTERNAL (both signatures), then held
    await svc.advance(rid, "CUTOVER", 100, actor="test")
    await svc.rollback(rid, actor="test")  # the stage it was admitted under has ended
    await d.send(job)  # released: signs as admitted, never by a later stage
    assert ep.last()["event"] == "evt-held" and ep.last()["sig"] and ep.last()["standard"]
    await _round(engine, tenant, "evt-new")  # a new admission: rolled back, old profile only
    assert (ep.last()["event"], ep.last()["sig"], ep.last()["standard"]) == ("evt-new", False, True)
    admitted = [
        msgspec.json.decode(bytes(r["data"]))
        for r in await engine.pool.fetch(
            "SELECT data FROM events WHERE type = 'delivery.attempt_admitted' "
            "ORDER BY global_position"
        )
    ]
    assert admitted[0]["rollout_stage"] == "INTERNAL" and admitted[0]["signing_mode"] == "dual"
    assert admitted[0]["rollout_version"] == 2
    assert admitted[1].get("rollout_id") is None  # rolled back: no rollout applies


async def test_key_rollout_to_a_new_engine_key_and_back_while_verify_only(
    engine: Engine, api: Api, hooks: HookServer, tenant_token: tuple[str, str]
) -> None:
    tenant, _ = tenant_token
    # Standard Webhooks has no key id: a subscriber learns a new key from the JWKS, here by
    # a refresh when no key it holds verifies (unthrottled for the test)
    eps = await _endpoints(engine, api, hooks, tenant, 1, refresh_s=0.0)
    [(sid, ep)] = eps.items()
    ep.accept = (SW,)
    ring = engine.services.keyring
    old = await ring.active("engine")
    nxt = await ring.rotate(actor="test")  # published NOT_BEFORE
    svc = engine.services.rollouts
    rid = (
        await svc.create(
            target_kind="signingKey",
            target=nxt.key_id,
            subscriptions=None,
            internal=[sid],
            dual_window_s=0.0,
            actor="test",
        )
    ).rollout_id
    await svc.advance(rid, "INTERNAL", None, actor="test")
    status, jwks = await api.call("GET", "/.well-known/hookproof/jwks.json")
    assert {k["kid"]: k["state"] for k in jwks["keys"]}[nxt.key_id] == "ACTIVE"  # signs now
    await _round(engine, tenant, "evt-both-keys")  # two v1a entries, one per key
    assert ep.last()["verified"] == (SW,)
    await svc.advance(rid, "CUTOVER", 100, actor="test")
    await _round(engine, tenant, "evt-new-key")
    assert ep.last()["verified"] == (SW,)
    await svc.advance(rid, "COMPLETE", None, actor="test")
    assert (await ring.active("engine")).key_id == nxt.key_id  # promoted
    assert str((await ring.get(old.key_id)).state) == "VERIFY_ONLY"
    await svc.rollback(rid, actor="test")  # allowed: the old key is VERIFY_ONLY
    assert (await ring.active("engine")).key_id == old.key_id
    admitted = [
        msgspec.json.decode(bytes(r["data"]))
        for r in await engine.pool.fetch(
            "SELECT data FROM events WHERE type = 'delivery.attempt_admitted' "
            "ORDER BY global_position"
        )
    ]
    assert [a["signed_with"] for a in admitted] == [
        [f"{SW}:{old.key_id}", f"{SW}:{nxt.key_id}"],
        [f"{SW}:{nxt.key_id}"],
    ]
