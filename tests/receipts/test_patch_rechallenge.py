"""A PATCH that changes what the challenge proves (the receipt key signs the proof)
challenges the endpoint again: a subscription stuck on ``unexpected_proof`` because its body
had no receiptKey becomes ACTIVE once the key is added."""

from __future__ import annotations

import asyncio
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from hookproof_subscriber import SigningKey

from .harness import Api, HookServer, ok_endpoint, receipt_key_body


async def _state(api: Api, token: str, sid: str, want: str) -> dict[str, Any]:
    for _ in range(100):
        status, view = await api.call("GET", f"/v1/subscriptions/{sid}", token=token)
        assert status == 200, view
        if view["state"] == want and view.get("lastReason") != "pending":
            return dict(view)
        await asyncio.sleep(0.1)
    raise AssertionError(f"{sid} never reached {want}: {view}")


async def test_adding_the_receipt_key_by_patch_challenges_again(
    api: Api, hooks: HookServer, tenant_token: tuple[str, str]
) -> None:
    _, token = tenant_token
    key = SigningKey.ed25519("rk-1", Ed25519PrivateKey.generate())
    url = hooks.mount("signs", ok_endpoint(receipt_key=key))  # proves under its receipt key
    body = {
        "endpoint": url,
        "topics": ["order.created"],
        "eventVersions": [1],
        "region": "eu",
        "signatureAlgorithm": "ed25519",
        "owner": "ops",
    }
    status, created = await api.call("POST", "/v1/subscriptions", token=token, json=body)
    assert status == 201, created
    sid = created["id"]
    for _ in range(100):  # the registration's challenge fails: a proof nobody asked for
        _, view = await api.call("GET", f"/v1/subscriptions/{sid}", token=token)
        if view.get("lastReason"):
            break
        await asyncio.sleep(0.1)
    assert view["state"] == "PENDING_CHALLENGE" and view["lastReason"] == "unexpected_proof"
    assert "receiptKey" in view["lastReasonDetail"]

    status, patched = await api.call(
        "PATCH",
        f"/v1/subscriptions/{sid}",
        token=token,
        json={"receiptKey": receipt_key_body(key)},
        headers={"If-Match": f'"{view["generation"]}"'},
    )
    assert status == 200, patched
    active = await _state(api, token, sid, "ACTIVE")
    assert active["generation"] == view["generation"]  # the same generation, proven again
    assert active["applicationEvidence"] == "RECEIPTS"
