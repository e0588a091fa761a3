"""The subscription API through a real aiohttp server and a real Postgres."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from hookproof.engine.api.openapi import OPERATIONS, openapi_document
from hookproof.engine.runtime.daemon import Engine

from .conftest import Api, sub_body


async def count_events(pool: asyncpg.Pool) -> int:
    return int(await pool.fetchval("SELECT count(*) FROM events"))


async def test_register_read_list(api: Api, token: str) -> None:
    status, headers, body = await api.call(
        "POST",
        "/v1/subscriptions",
        token=token,
        json=sub_body(
            endpoint="HTTPS://Hooks.Example.COM:443/in", signatureAlgorithm="hmac-sha256"
        ),
    )
    assert status == 201, body
    assert body["state"] == "PENDING_CHALLENGE" and body["generation"] == 1
    assert body["endpoint"] == "https://hooks.example.com/in"
    assert len(body["endpointDigest"]) == 64
    import base64

    assert len(base64.b64decode(body["secret"], validate=True)) >= 32
    assert headers["ETag"] == '"1"'
    status, headers, got = await api.call("GET", f"/v1/subscriptions/{body['id']}", token=token)
    assert status == 200 and headers["ETag"] == '"1"'
    assert "secret" not in got, "the secret is shown once, at creation"
    assert got["applicationEvidence"] == "UNOBSERVABLE"
    status, _, listed = await api.call("GET", "/v1/subscriptions", token=token)
    assert [s["id"] for s in listed["items"]] == [body["id"]]


async def test_auth_required_and_token_revocation(api: Api, engine: Engine) -> None:
    status, _, body = await api.call("GET", "/v1/subscriptions")
    assert status == 401 and body["code"] == "missing_token"
    status, _, body = await api.call("GET", "/v1/subscriptions", token="hp_nope_nope")
    assert status == 401 and body["code"] == "invalid_token"
    issued = await engine.tenants.create("temp")
    assert (await api.call("GET", "/v1/subscriptions", token=issued.token))[0] == 200
    await engine.tenants.revoke_token(issued.token_id)
    assert (await api.call("GET", "/v1/subscriptions", token=issued.token))[0] == 401


async def test_cross_tenant_is_404_and_writes_nothing(
    api: Api, token: str, other_token: str, pool: asyncpg.Pool, engine: Engine
) -> None:
    _, _, sub = await api.call("POST", "/v1/subscriptions", token=token, json=sub_body())
    sid = sub["id"]
    await engine.drain()  # the registration's own challenge has finished writing
    before = await count_events(pool)
    for method, path, kw in [
        ("GET", f"/v1/subscriptions/{sid}", {}),
        ("GET", f"/v1/subscriptions/{sid}/history", {}),
        (
            "PATCH",
            f"/v1/subscriptions/{sid}",
            {"json": {"owner": "x"}, "headers": {"If-Match": '"1"'}},
        ),
        ("POST", f"/v1/subscriptions/{sid}/revoke", {}),
        ("POST", f"/v1/subscriptions/{sid}/suspend", {}),
    ]:
        status, _, body = await api.call(method, path, token=other_token, **kw)
        assert status == 404, (method, path, body)
        assert body["code"] == "subscription_not_found"
    assert await count_events(pool) == before
    _, _, listed = await api.call("GET", "/v1/subscriptions", token=other_token)
    assert listed["items"] == []


async def test_concurrent_patches_one_wins(api: Api, token: str, engine: Engine) -> None:
    _, _, sub = await api.call("POST", "/v1/subscriptions", token=token, json=sub_body())
    sid = sub["id"]

    async def patch(i: int) -> int:
        status, _, _ = await api.call(
            "PATCH",
            f"/v1/subscriptions/{sid}",
            token=token,
            json={"endpoint": f"https://hooks{i}.example.com/in"},
            headers={"If-Match": '"1"'},
        )
        return status

    statuses = sorted(await asyncio.gather(patch(1), patch(2)))
    assert statuses == [200, 412]
    history = await engine.store.read_stream(f"subscription-{sid}")
    changes = [e.type for e in history if "challenge" not in e.type]
    assert changes == ["subscription.registered", "subscription.updated"]
    status, headers, body = await api.call(
        "PATCH",
        f"/v1/subscriptions/{sid}",
        token=token,
        json={"owner": "o2"},
        headers={"If-Match": '"1"'},
    )
    assert (
        status == 412 and body["currentGeneration"] == 2 and body["code"] == "generation_mismatch"
    )


async def test_generation_changes_through_the_api(api: Api, token: str) -> None:
    _, _, sub = await api.call("POST", "/v1/subscriptions", token=token, json=sub_body())
    sid = sub["id"]
    status, headers, body = await api.call(
        "PATCH",
        f"/v1/subscriptions/{sid}",
        token=token,
        json={"retryPolicy": {"maxAttempts": 3}},
        headers={"If-Match": '"1"'},
    )
    assert status == 200 and body["generation"] == 1 and body["retryPolicy"]["maxAttempts"] == 3
    status, headers, body = await api.call(
        "PATCH",
        f"/v1/subscriptions/{sid}",
        token=token,
        json={"topics": ["order.paid"]},
        headers={"If-Match": '"1"'},
    )
    assert status == 200 and body["generation"] == 2 and headers["ETag"] == '"2"'
    assert body["state"] == "PENDING_CHALLENGE"
    status, _, body = await api.call("POST", f"/v1/subscriptions/{sid}/suspend", token=token)
    assert status == 200 and body["state"] == "SUSPENDED"
    status, _, body = await api.call("POST", f"/v1/subscriptions/{sid}/resume", token=token)
    assert status == 200 and body["state"] == "PENDING_CHALLENGE"
    status, _, body = await api.call("POST", f"/v1/subscriptions/{sid}/revoke", token=token)
    assert status == 200 and body["state"] == "REVOKED" and body["generation"] == 3
    status, _, body = await api.call("POST", f"/v1/subscriptions/{sid}/resume", token=token)
    assert status == 409 and body["code"] == "subscription_closed"
    _, _, hist = await api.call("GET", f"/v1/subscriptions/{sid}/history", token=token)
    assert [h["type"] for h in hist["items"] if "challenge" not in h["type"]] == [
        "subscription.registered",
        "subscription.updated",
        "subscription.updated",
        "subscription.state_changed",
        "subscription.state_changed",
        "subscription.state_changed",
    ]
    versions = [h["streamVersion"] for h in hist["items"]]
    assert versions == list(range(1, len(versions) + 1))
    assert hist["items"][0]["actor"].startswith("tenant:")


@pytest.mark.parametrize(
    "patch,field,code",
    [
        ({"endpoint": "http://hooks.example.com/"}, "endpoint", "endpoint_scheme_not_https"),
        ({"endpoint": "https://user:pw@hooks.example.com/"}, "endpoint", "endpoint_userinfo"),
        ({"endpoint": "https://10.0.0.1/"}, "endpoint", "endpoint_ip_forbidden"),
        ({"endpoint": "https://0x7f000001/"}, "endpoint", "endpoint_numeric_host"),
        ({"endpoint": "https://hooks.example.com:22/"}, "endpoint", "endpoint_port_not_allowed"),
        ({"topics": []}, "topics", "invalid_request"),
        ({"topics": "order"}, "topics", "invalid_request"),
        ({"eventVersions": ["1"]}, "eventVersions[0]", "invalid_request"),
        ({"signatureAlgorithm": "rsa"}, "signatureAlgorithm", "invalid_request"),
        ({"oldGenerationPolicy": "maybe"}, "oldGenerationPolicy", "invalid_request"),
        ({"expiresAt": "tomorrow"}, "expiresAt", "invalid_request"),
        ({"expiresAt": "2001-01-01T00:00:00Z"}, "expiresAt", "invalid_request"),
        ({"surprise": 1}, "surprise", "invalid_request"),
        (
            {"receiptKey": {"keyId": "k", "publicKeyJwk": {"kty": "RSA"}}},
            "receiptKey.publicKeyJwk",
            "invalid_request",
        ),
        ({"retryPolicy": {"maxAttempts": 0}}, "retryPolicy.maxAttempts", "number_out_of_range"),
        ({"filter": {"": 1}}, "filter", "invalid_request"),
    ],
)
async def test_bad_input_names_the_field(
    api: Api,
    token: str,
    pool: asyncpg.Pool,
    patch: dict,
    field: str,
    code: str,  # type: ignore[type-arg]
) -> None:
    before = await count_events(pool)
    status, headers, body = await api.call(
        "POST", "/v1/subscriptions", token=token, json=sub_body(**patch)
    )
    assert status == 400, body
    assert headers["Content-Type"].startswith("application/problem+json")
    assert body["field"] == field and body["code"] == code
    assert {"type", "title", "status", "detail", "code"} <= set(body)
    assert await count_events(pool) == before


async def test_malformed_and_oversized_bodies(api: Api, token: str) -> None:
    status, _, body = await api.call("POST", "/v1/subscriptions", token=token, data=b"{not json")
    assert status == 400 and body["code"] == "invalid_json"
    status, _, body = await api.call("POST", "/v1/subscriptions", token=token, data=b"[]")
    assert status == 400
    status, _, body = await api.call(
        "POST", "/v1/subscriptions", token=token, data=b'{"x":"' + b"a" * 300_000 + b'"}'
    )
    assert status == 413 and body["code"] == "body_too_large"
    status, _, body = await api.call("GET", "/v1/nowhere", token=token)
    assert status == 404 and body["code"] == "not_found"
    status, _, body = await api.call("PATCH", "/v1/subscriptions/sub_x", token=token, json={})
    assert status == 400 and body["code"] == "invalid_id"  # the id's format, before any query
    missing = "/v1/subscriptions/sub_" + "0" * 24
    status, _, body = await api.call("PATCH", missing, token=token, json={})
    assert status == 404


async def test_patch_requires_if_match(api: Api, token: str) -> None:
    _, _, sub = await api.call("POST", "/v1/subscriptions", token=token, json=sub_body())
    status, _, body = await api.call(
        "PATCH", f"/v1/subscriptions/{sub['id']}", token=token, json={"owner": "x"}
    )
    assert status == 428 and body["code"] == "if_match_required"


async def test_openapi_matches_routes(api: Api, engine: Engine) -> None:
    status, _, doc = await api.call("GET", "/openapi.json")
    assert status == 200 and doc["openapi"].startswith("3.1")
    app = engine.app()
    routed = set()
    for route in app.router.routes():
        info = route.resource.get_info()
        if route.method == "*":  # params.only: the 405 of a path another route shadows
            continue
        routed.add((route.method.lower(), info.get("path") or info.get("formatter")))
    documented = {(m, p) for p, ops in doc["paths"].items() for m in ops}
    assert documented == routed
    assert routed <= set(OPERATIONS)
    assert openapi_document(app)["paths"].keys() == doc["paths"].keys()


async def test_health(api: Api) -> None:
    assert (await api.call("GET", "/healthz"))[0] == 200
    status, _, body = await api.call("GET", "/readyz")
    assert status == 200 and body["status"] == "ready"


async def test_expiry_happens_on_its_own(api: Api, token: str, engine: Engine) -> None:
    from datetime import UTC, datetime, timedelta

    soon = (datetime.now(UTC) + timedelta(seconds=1)).isoformat()
    _, _, sub = await api.call(
        "POST", "/v1/subscriptions", token=token, json=sub_body(expiresAt=soon)
    )
    assert await engine.subscriptions.expire_due() == []
    await asyncio.sleep(1.2)
    assert await engine.subscriptions.expire_due() == [sub["id"]]
    status, _, got = await api.call("GET", f"/v1/subscriptions/{sub['id']}", token=token)
    assert got["state"] == "EXPIRED"
    assert await engine.subscriptions.expire_due() == []
