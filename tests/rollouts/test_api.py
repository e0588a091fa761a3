"""``/v1/rollouts`` over the engine's real API: operator token only, stages in order, figures,
rollback refused exactly when the previous key is revoked, a compromise pauses."""

from __future__ import annotations

from typing import Any

import pytest

from hookproof.engine.runtime.daemon import Engine
from tests.receipts.harness import Api, HookServer, active_subscription, ok_endpoint

OP = "op-secret-token"


@pytest.fixture(autouse=True)
def _admin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOOKPROOF_ADMIN_TOKEN", OP)


async def _subs(engine: Engine, hooks: HookServer, tenant: str, n: int) -> list[str]:
    out = []
    for i in range(n):
        url = hooks.mount(f"s{i}", ok_endpoint())
        out.append(
            await active_subscription(engine, tenant, url, signatureProfile="standard-webhooks.v1")
        )
    return out


async def test_rollout_lifecycle_over_the_api(
    engine: Engine, api: Api, hooks: HookServer, tenant_token: tuple[str, str]
) -> None:
    tenant, token = tenant_token
    subs = await _subs(engine, hooks, tenant, 2)
    body: dict[str, Any] = {
        "target": {"signatureProfile": "hookproof.sig.v1"},
        "subscriptions": "all",
        "internal": [subs[0]],
    }
    status, problem = await api.call("POST", "/v1/rollouts", token=token, json=body)
    # a valid tenant token is of the wrong kind: 403, not 401 (one rule for every route)
    assert status == 403 and problem["code"] == "operator_only"
    status, ro = await api.call("POST", "/v1/rollouts", token=OP, json=body)
    assert status == 201, ro
    assert ro["id"].startswith("ro_") and ro["stage"] == "SHADOW" and ro["state"] == "RUNNING"
    assert ro["shadow"] == {"checked": 0, "mismatches": 0}
    assert ro["internal"] == {"dualSigned": 0}
    assert set(ro["cutover"]) >= {"switched", "acceptance", "baselineAcceptance"}
    rid = ro["id"]
    path = f"/v1/rollouts/{rid}"
    status, p = await api.call(
        "POST", path + "/advance", token=OP, json={"stage": "CUTOVER", "percent": 5}
    )
    assert status == 409 and p["code"] == "rollout_stage_order"
    status, ro = await api.call("POST", path + "/advance", token=OP, json={"stage": "INTERNAL"})
    assert status == 200 and ro["stage"] == "INTERNAL"
    status, ro = await api.call(
        "POST", path + "/advance", token=OP, json={"stage": "CUTOVER", "percent": 50}
    )
    assert (ro["stage"], ro["percent"]) == ("CUTOVER", 50)
    status, p = await api.call(
        "POST", path + "/advance", token=OP, json={"stage": "CUTOVER", "percent": 40}
    )
    assert status == 409 and p["code"] == "rollout_percent_shrinks"
    status, ro = await api.call("POST", path + "/pause", token=OP)
    assert (status, ro["state"], ro["pauseReason"]) == (200, "PAUSED", "operator")
    status, p = await api.call("POST", path + "/advance", token=OP, json={"stage": "COMPLETE"})
    assert status == 409 and p["code"] == "rollout_state_forbids"
    status, ro = await api.call("POST", path + "/resume", token=OP)
    assert ro["state"] == "RUNNING"
    status, ro = await api.call("GET", path, token=OP)
    assert status == 200 and ro["cutover"]["covered"] == 2
    # the engine key is ACTIVE: rollback allowed
    status, ro = await api.call("POST", path + "/rollback", token=OP)
    assert (status, ro["state"]) == (200, "ROLLED_BACK")
    types = [e.type for e in await engine.store.read_stream(f"rollout-{rid}")]
    assert types == [
        "rollout.created",
        "rollout.advanced",
        "rollout.advanced",
        "rollout.paused",
        "rollout.resumed",
        "rollout.rolled_back",
    ]
    status, doc = await api.call("GET", "/openapi.json")
    for p in (
        "/v1/rollouts",
        "/v1/rollouts/{id}",
        "/v1/rollouts/{id}/advance",
        "/v1/rollouts/{id}/pause",
        "/v1/rollouts/{id}/resume",
        "/v1/rollouts/{id}/rollback",
    ):
        assert p in doc["paths"], p


async def test_bad_rollout_requests_are_problems(
    engine: Engine, api: Api, tenant_token: tuple[str, str]
) -> None:
    cases = [
        ({"target": {}, "subscriptions": "all"}, "invalid_request"),
        ({"target": {"signatureProfile": "x"}, "subscriptions": "all"}, None),
        (
            {"target": {"signatureProfile": "hookproof.sig.v1"}, "subscriptions": ["sub_nope"]},
            "subscription_not_found",
        ),
        ({"target": {"signingKey": "k_nope"}, "subscriptions": "all"}, "key_not_found"),
    ]
    for body, code in cases:
        status, p = await api.call("POST", "/v1/rollouts", token=OP, json=body)
        assert status == 400, (body, p)
        if code:
            assert p["code"] == code
    status, p = await api.call("GET", "/v1/rollouts/ro_missing", token=OP)
    assert status == 400 and p["code"] == "invalid_id"  # the id's format, before any query
    missing = "ro_" + "0" * 20
    status, p = await api.call("GET", f"/v1/rollouts/{missing}", token=OP)
    assert status == 404 and p["code"] == "rollout_not_found"
    status, p = await api.call("POST", f"/v1/rollouts/{missing}/pause", token=OP)
    assert status == 404
    assert await engine.pool.fetchval("SELECT count(*) FROM events WHERE category = 'rollout'") == 0


async def test_rollback_allowed_while_verify_only_refused_after_compromise(
    engine: Engine, api: Api, hooks: HookServer, tenant_token: tuple[str, str]
) -> None:
    tenant, _ = tenant_token
    await _subs(engine, hooks, tenant, 1)
    ring = engine.services.keyring
    old = await ring.active("engine")
    body = {"target": {"signatureProfile": "hookproof.sig.v1"}, "subscriptions": "all"}
    # 1. the previous key went VERIFY_ONLY (a normal rotation): rollback still allowed
    _, ro = await api.call("POST", "/v1/rollouts", token=OP, json=body)
    assert ro["sourceKeyId"] == old.key_id
    nxt = await ring.rotate(actor="test")
    await ring.promote(nxt.key_id, actor="test")
    assert str((await ring.get(old.key_id)).state) == "VERIFY_ONLY"
    status, after = await api.call("POST", f"/v1/rollouts/{ro['id']}/rollback", token=OP)
    assert (status, after["state"]) == (200, "ROLLED_BACK")
    # 2. a rollout whose previous key is then compromised: paused at once, rollback refused
    _, ro2 = await api.call("POST", "/v1/rollouts", token=OP, json=body)
    assert ro2["sourceKeyId"] == nxt.key_id
    report = await engine.services.rotation.compromise(nxt.key_id, actor="test")
    assert report["rolloutsPaused"] == [ro2["id"]]
    status, view = await api.call("GET", f"/v1/rollouts/{ro2['id']}", token=OP)
    assert (view["state"], view["pauseReason"]) == ("PAUSED", "key_compromised")
    status, p = await api.call("POST", f"/v1/rollouts/{ro2['id']}/rollback", token=OP)
    assert status == 409 and p["code"] == "rollback_refused" and p["keyState"] == "REVOKED"
    status, view = await api.call("GET", f"/v1/rollouts/{ro2['id']}", token=OP)
    assert view["state"] == "PAUSED"
    types = [e.type for e in await engine.store.read_stream(f"rollout-{ro2['id']}")]
    assert types == ["rollout.created", "rollout.paused", "rollout.rollback_refused"]


HOSTILE: list[Any] = [
    None,
    [],
    "x",
    0,
    {"target": None},
    {"target": {"signatureProfile": None}, "subscriptions": 1},
    {"target": {"signingKey": ""}, "subscriptions": []},
    {"target": {"signatureProfile": "hookproof.sig.v1"}, "subscriptions": [], "internal": []},
    {"target": {"signatureProfile": "hookproof.sig.v1", "signingKey": "k"}, "subscriptions": "all"},
    {"target": {"signatureProfile": "hookproof.sig.v1"}, "subscriptions": "all", "dualWindowS": -1},
    {
        "target": {"signatureProfile": "hookproof.sig.v1"},
        "subscriptions": "all",
        "dualWindowS": 1e308,
    },
    {"target": {"signatureProfile": "hookproof.sig.v1"}, "subscriptions": ["\u0000", "' OR 1=1"]},
    {"target": {"signatureProfile": "hookproof.sig.v1"}, "subscriptions": "all", "internal": ["x"]},
    {"stage": "CUTOVER", "percent": 10**30},
    {"stage": "COMPLETE", "percent": 7},
    {"stage": "SHADOW"},
    {"stage": "CUTOVER", "percent": -1},
    {"stage": "CUTOVER"},
    {"stage": "INTERNAL", "extra": 1},
]


async def test_hostile_operator_input_is_a_problem_never_a_5xx(
    engine: Engine, api: Api, hooks: HookServer, tenant_token: tuple[str, str]
) -> None:
    _, ro = await api.call(
        "POST",
        "/v1/rollouts",
        token=OP,
        json={"target": {"signatureProfile": "hookproof.sig.v1"}, "subscriptions": "all"},
    )
    paths = [
        "/v1/rollouts",
        f"/v1/rollouts/{ro['id']}/advance",
        "/v1/rollouts/%00/advance",
        f"/v1/rollouts/{ro['id']}/pause",
        "/v1/rollouts/..%2f..%2fx/rollback",
    ]
    for path in paths:
        for body in HOSTILE:
            status, p = await api.call("POST", path, token=OP, json=body)
            assert status < 500, (path, body, p)
            if status >= 400:
                assert isinstance(p, dict) and p.get("code"), (path, body, p)
        status, _ = await api.call("POST", path, token=OP, data=b"\xff{not json")
        assert status < 500 and (status >= 400 or path.endswith("/pause"))  # pause takes no body
