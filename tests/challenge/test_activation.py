"""A subscription registered through the API becomes ACTIVE only through a real challenge over
real HTTPS, answered by a subscriber built on the SDK."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

from hookproof_subscriber import (
    SIG_V1,
    Reason,
    SigningKey,
    averify_request,
    endpoint_digest,
    public_jwk,
)

from .conftest import MakeHarness


def _b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


async def test_ed25519_subscription_activates_through_challenge(
    make_harness: MakeHarness,
) -> None:
    h = await make_harness()
    view = await h.register()
    assert view["state"] == "PENDING_CHALLENGE"
    h.endpoint.configure(h.subscriber(view))
    await h.engine.drain()

    state = await h.get(view["id"])
    assert state["state"] == "ACTIVE"
    assert state["verifiedGeneration"] == view["generation"]
    passed = await h.events(view["id"], "subscription.challenge_passed")
    issued = await h.events(view["id"], "subscription.challenge_issued")
    assert len(passed) == len(issued) == 1
    assert passed[0]["challenge_id"] == issued[0]["challenge_id"]
    assert passed[0]["resolved_addresses"] == ["127.0.0.1"]
    assert passed[0]["peer_address"] == "127.0.0.1"
    assert passed[0]["spki_sha256"] and passed[0]["issuer"]
    # exactly one activation, by the challenger
    changes = await h.events(view["id"], "subscription.state_changed")
    assert [(c["command"], c["to_state"]) for c in changes] == [("activate", "ACTIVE")]
    # the answer carried no proof: an ed25519 subscription without a receipt key has none
    status, answer = h.endpoint.answers[0]
    assert status == 200 and "proof" not in json.loads(answer)


async def test_challenge_request_verifies_under_sig_v1_with_the_engine_jwks(
    make_harness: MakeHarness,
) -> None:
    h = await make_harness()
    view = await h.register()
    h.endpoint.configure(h.subscriber(view))
    await h.engine.drain()
    assert (await h.get(view["id"]))["state"] == "ACTIVE"

    [seen] = h.endpoint.requests
    doc = json.loads(seen.body)
    assert doc["type"] == "hookproof.challenge.v1"
    assert seen.header("Webhook-Id") == doc["challengeId"]
    assert seen.header("Webhook-Delivery-Id") == doc["challengeId"]
    assert seen.header("Webhook-Attempt") == "1"
    assert seen.header("Webhook-Subscription") == view["id"]
    assert seen.header("Webhook-Generation") == str(view["generation"])
    assert seen.header("Content-Type") == "application/json"
    assert seen.header("traceparent")
    assert 'tag="hookproof.sig.v1"' in (seen.header("Signature-Input") or "")
    # verified independently of the SDK's Subscriber, with a fresh JWKS resolver
    res = await averify_request(
        "POST", view["endpoint"], seen.headers, seen.body, keys=h.jwks(), profile=SIG_V1
    )
    assert res.reason is Reason.OK, res
    assert res.key_id == doc["keyId"]
    # the body binds what the API reported
    assert doc["subscriptionId"] == view["id"]
    assert doc["generation"] == view["generation"]
    assert doc["endpointDigest"] == view["endpointDigest"] == endpoint_digest(view["endpoint"])
    assert len(_b64url_decode(doc["nonce"])) == 32
    # a tampered body no longer verifies (the digest covers the exact bytes)
    res = await averify_request(
        "POST",
        view["endpoint"],
        seen.headers,
        seen.body.replace(b'"generation"', b'"generation" '),
        keys=h.jwks(),
        profile=SIG_V1,
    )
    assert res.reason is not Reason.OK


async def test_hmac_subscription_activates_with_mac_under_registration_secret(
    make_harness: MakeHarness,
) -> None:
    h = await make_harness()
    view = await h.register(signatureAlgorithm="hmac-sha256")
    secret = base64.b64decode(view["secret"])
    assert len(secret) >= 32
    h.endpoint.configure(h.subscriber(view, secret=view["secret"]))
    await h.engine.drain()

    assert (await h.get(view["id"]))["state"] == "ACTIVE"
    [seen] = h.endpoint.requests
    assert 'alg="hmac-sha256"' in (seen.header("Signature-Input") or "")
    _status, answer = h.endpoint.answers[0]
    proof = json.loads(answer)["proof"]
    assert _b64url_decode(proof) == hmac.new(secret, seen.body, hashlib.sha256).digest()
    assert "=" not in proof


async def test_receipt_key_subscription_activates_with_ed25519_proof(
    make_harness: MakeHarness,
) -> None:
    h = await make_harness()
    receipt_key = SigningKey.generate_ed25519("rk_test_1")
    jwk = public_jwk(receipt_key)
    view = await h.register(receiptKey={"keyId": "rk_test_1", "publicKeyJwk": jwk})
    h.endpoint.configure(h.subscriber(view, receipt_key=receipt_key))
    await h.engine.drain()

    assert (await h.get(view["id"]))["state"] == "ACTIVE"
    [seen] = h.endpoint.requests
    _, answer = h.endpoint.answers[0]
    proof = _b64url_decode(json.loads(answer)["proof"])
    assert receipt_key.private_key is not None
    receipt_key.private_key.public_key().verify(proof, seen.body)  # raises if not


async def test_retry_after_failure_activates(make_harness: MakeHarness) -> None:
    """A failed challenge is retried by the tenant (POST .../challenge) and then activates."""
    h = await make_harness()
    view = await h.register()
    h.endpoint.tamper = lambda doc, _seen: {**doc, "nonce": "A" * 43}
    h.endpoint.configure(h.subscriber(view))
    await h.engine.drain()
    assert (await h.get(view["id"]))["state"] == "PENDING_CHALLENGE"

    h.endpoint.tamper = None
    out = await h.challenge(view["id"])
    assert out["challenge"]["passed"] is True, out
    assert out["state"] == "ACTIVE"
    failed = await h.events(view["id"], "subscription.challenge_failed")
    assert [f["reason"] for f in failed] == ["nonce_mismatch"]
