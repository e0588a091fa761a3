"""The API's three rules (issue 38): ``Allow`` on every 405; every query parameter checked
before any query; one rule for authentication (401 without a valid token, 403 for a valid
token of the wrong kind) on every route."""

from __future__ import annotations

import pytest

from hookproof.engine.runtime.daemon import Engine

from .conftest import Api, sub_body

OPERATOR = "operator-token"
#: every operator-only route (a tenant token is valid, but of the wrong kind)
OPERATOR_ROUTES = [
    ("POST", "/v1/tenants", {"name": "x"}),
    ("GET", "/v1/rollouts", None),
    (
        "POST",
        "/v1/rollouts",
        {"target": {"signatureProfile": "hookproof.sig.v1"}, "subscriptions": "all"},
    ),
    ("POST", "/v1/keys/rotate", None),
    ("GET", "/metrics", None),
    ("GET", "/v1/gates", None),
]


async def test_every_405_says_allow(api: Api, token: str) -> None:
    for method, path, allowed in (
        ("PUT", "/v1/subscriptions", {"GET", "POST"}),
        ("DELETE", "/v1/events", {"POST"}),
        ("POST", "/healthz", {"GET"}),
        ("PATCH", "/v1/deliveries", {"GET"}),
    ):
        status, headers, doc = await api.call(method, path, token=token)
        assert status == 405 and doc["code"] == "method_not_allowed", (method, path, doc)
        assert headers["Content-Type"].startswith("application/problem+json")
        assert {m.strip() for m in headers["Allow"].split(",")} == allowed, headers


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ("subscriptionId=sub_zz", "invalid_id"),
        ("subscriptionId=sub_%00" + "0" * 23, "invalid_id"),
        ("subscriptionId=%00", "invalid_id"),
        ("subscriptionId=", "invalid_id"),
        ("state=NOPE", "invalid_state"),
        ("state=%00", "invalid_state"),
        ("limit=0", "invalid_limit"),
        ("limit=1001", "invalid_limit"),
        ("limit=%C2%B2", "invalid_limit"),
        ("limit=1&limit=2", "repeated_parameter"),
    ],
)
async def test_deliveries_query_is_checked_before_any_query(
    api: Api, token: str, engine: Engine, query: str, code: str
) -> None:
    status, _, doc = await api.call("GET", "/v1/deliveries?" + query, token=token)
    assert status == 400 and doc["code"] == code, doc
    assert doc["field"] == query.split("=", 1)[0]


async def test_cursor_is_opaque_with_its_format(api: Api, token: str) -> None:
    for path in ("/v1/subscriptions", "/v1/consumers", "/v1/dead-letters", "/v1/event-types"):
        for bad in ("", "a+b", "a%00", "x" * 513, "a/b=="):
            status, _, doc = await api.call("GET", f"{path}?cursor={bad}", token=token)
            assert status == 400 and doc["code"] == "invalid_cursor", (path, bad, doc)
        status, _, doc = await api.call("GET", f"{path}?cursor=bm9wZQ", token=token)
        assert status == 400 and doc["code"] == "invalid_cursor", (path, doc)  # not one of ours


async def test_good_subscription_id_filter_answers(api: Api, token: str) -> None:
    _, _, sub = await api.call("POST", "/v1/subscriptions", token=token, json=sub_body())
    status, _, doc = await api.call(
        "GET", f"/v1/deliveries?subscriptionId={sub['id']}&state=DEAD_LETTER&limit=5", token=token
    )
    assert status == 200 and doc == {"items": [], "nextCursor": None}


async def test_who_asks_comes_before_what_is_asked(api: Api) -> None:
    status, _, doc = await api.call("GET", "/v1/deliveries?subscriptionId=%00")
    assert status == 401 and doc["code"] == "missing_token", doc
    status, _, doc = await api.call("GET", "/v1/deliveries/x", token="hp_nope_nope")
    assert status == 401 and doc["code"] == "invalid_token", doc


async def test_one_rule_for_authentication(
    api: Api, token: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOOKPROOF_ADMIN_TOKEN", OPERATOR)
    for method, path, body in OPERATOR_ROUTES:
        status, _, doc = await api.call(method, path, json=body)
        assert status == 401 and doc["code"] == "missing_token", (path, doc)
        status, _, doc = await api.call(method, path, token="hp_abc_nope", json=body)
        assert status == 401 and doc["code"] == "invalid_token", (path, doc)
        status, _, doc = await api.call(method, path, token=token, json=body)
        assert status == 403 and doc["code"] == "operator_only", (path, doc)
    # and the other way round: the operator token is valid, but not a tenant's
    for method, path in (
        ("GET", "/v1/subscriptions"),
        ("POST", "/v1/events"),
        ("GET", "/v1/deliveries"),
        ("GET", "/v1/consumers"),
    ):
        status, _, doc = await api.call(method, path, token=OPERATOR, json={})
        assert status == 403 and doc["code"] == "tenant_only", (path, doc)
        status, _, doc = await api.call(method, path, json={})
        assert status == 401 and doc["code"] == "missing_token", (path, doc)
