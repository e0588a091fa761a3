"""``auth.type = header`` (DESIGN.md section 14): one static header on every request to the
endpoint (challenge included), reserved names refused with a stable code, the value never
echoed nor in an event; a PATCH of ``auth`` is its own event and keeps the generation."""

from __future__ import annotations

import json
import secrets

import pytest

from hookproof.engine.endpoint_auth.spec import reserved_header

from .auth_support import dispatch, publish
from .conftest import MakeHarness

RESERVED = [
    "Host",
    "Content-Type",
    "content-length",
    "Content-Digest",
    "Signature",
    "Signature-Input",
    "Signature-Agent",
    "Connection",
    "Transfer-Encoding",
    "Upgrade",
    "TE",
    "Keep-Alive",
    "Proxy-Authorization",
    "Webhook-Id",
    "webhook-signature",
    "Hookproof-Anything",
]


@pytest.mark.parametrize("name", RESERVED)
def test_reserved_names(name: str) -> None:
    assert reserved_header(name)


@pytest.mark.parametrize("name", ["Authorization", "X-Api-Key", "X-Webhook"])
def test_ordinary_names(name: str) -> None:
    assert not reserved_header(name)


async def test_static_header_sent_never_echoed_patch_is_its_own_event(
    make_harness: MakeHarness,
) -> None:
    h = await make_harness()
    value = "key-" + secrets.token_urlsafe(24)
    for name in RESERVED:
        status, _, body = await h.api.call(
            "POST",
            "/v1/subscriptions",
            token=h.token,
            json=_body(h, {"type": "header", "name": name, "value": value}),
        )
        assert (status, body["code"], body["field"]) == (
            400,
            "auth_header_reserved",
            "auth.name",
        ), name
        assert value not in json.dumps(body)
    for bad in ({"name": "X Key", "value": value}, {"name": "X-Key", "value": value + "\r\nA: b"}):
        status, _, body = await h.api.call(
            "POST", "/v1/subscriptions", token=h.token, json=_body(h, {"type": "header", **bad})
        )
        assert (status, body["code"]) == (400, "auth_header_invalid")

    view = await h.register(auth={"type": "header", "name": "X-Api-Key", "value": value})
    assert view["auth"]["type"] == "header" and view["auth"]["name"] == "X-Api-Key"
    assert value not in json.dumps(view)
    h.endpoint.configure(h.subscriber(view))
    await h.engine.drain()
    assert (await h.get(view["id"]))["state"] == "ACTIVE"
    await publish(h, "hdr", 2)
    assert await dispatch(h) == 2
    assert [s.header("X-Api-Key") for s in h.endpoint.requests] == [value] * 3

    second = "key-" + secrets.token_urlsafe(24)
    status, _, patched = await h.api.call(
        "PATCH",
        f"/v1/subscriptions/{view['id']}",
        token=h.token,
        json={"auth": {"type": "header", "name": "X-Api-Key", "value": second}},
        headers={"If-Match": f'"{view["generation"]}"'},
    )
    assert status == 200, patched
    assert patched["generation"] == view["generation"] and patched["state"] == "ACTIVE"
    await publish(h, "hdr2", 1)
    assert await dispatch(h) == 1
    assert h.endpoint.requests[-1].header("X-Api-Key") == second
    # removed with null: again its own event
    status, _, removed = await h.api.call(
        "PATCH",
        f"/v1/subscriptions/{view['id']}",
        token=h.token,
        json={"auth": None},
        headers={"If-Match": f'"{view["generation"]}"'},
    )
    assert status == 200 and removed["auth"] is None
    await publish(h, "hdr3", 1)
    assert await dispatch(h) == 1
    assert h.endpoint.requests[-1].header("X-Api-Key") is None

    changes = await h.events(view["id"], "subscription.auth_changed")
    assert [c["auth"] and c["auth"]["type"] for c in changes] == ["header", None]
    assert await h.events(view["id"], "subscription.updated") == []
    history = json.dumps(await h.history(view["id"]))
    rows = await h.engine.pool.fetch("SELECT data::text AS d FROM events")
    for text in (history, *(r["d"] for r in rows)):
        assert value not in text and second not in text
    # at rest: sealed (AES-GCM under the master key), two rows, neither in the clear
    sealed = await h.engine.pool.fetch("SELECT ciphertext FROM endpoint_auth_material")
    assert len(sealed) == 2
    for r in sealed:
        assert value.encode() not in bytes(r["ciphertext"])
        assert second.encode() not in bytes(r["ciphertext"])


def _body(h: object, auth: dict[str, str]) -> dict[str, object]:
    from tests.subscriptions.conftest import sub_body

    return {**sub_body(endpoint=h.endpoint.url), "auth": auth}  # type: ignore[attr-defined]


async def test_rate_limit_is_set_changed_and_removed_in_the_same_generation(
    make_harness: MakeHarness,
) -> None:
    h = await make_harness()
    for bad in ({"perSecond": 0, "burst": 1}, {"perSecond": 5, "burst": 0}, {"perSecond": 5}):
        status, _, body = await h.api.call(
            "POST",
            "/v1/subscriptions",
            token=h.token,
            json={**_body(h, {"type": "header", "name": "X-K", "value": "v"}), "rateLimit": bad},
        )
        assert status == 400 and body["field"].startswith("rateLimit"), body
    view = await h.register(rateLimit={"perSecond": 20, "burst": 5})
    assert view["rateLimit"] == {"perSecond": 20.0, "burst": 5}
    for change, expected in (
        ({"perSecond": 2.5, "burst": 1}, {"perSecond": 2.5, "burst": 1}),
        (None, None),
    ):
        status, _, patched = await h.api.call(
            "PATCH",
            f"/v1/subscriptions/{view['id']}",
            token=h.token,
            json={"rateLimit": change},
            headers={"If-Match": f'"{view["generation"]}"'},
        )
        assert status == 200, patched
        assert patched["rateLimit"] == expected
        assert patched["generation"] == view["generation"]
    updates = await h.events(view["id"], "subscription.updated")
    assert [u["changed"] for u in updates] == [["rate_limit"], ["rate_limit"]]
