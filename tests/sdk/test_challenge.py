"""Challenge answers: echo, proof, verification first, refusals."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

import pytest

from hookproof_subscriber import (
    KeyState,
    SharedSecretResolver,
    SigningKey,
    StaticKeyResolver,
    Subscriber,
)
from hookproof_subscriber.challenge import CHALLENGE_FIELDS

from .helpers import ENDPOINT, ENGINE_KEY, NOW, SECRET, SUB_KEY, challenge, delivery

RECEIPT_KEY = SigningKey.generate_ed25519("rk-1")


def _b64url_decode(text: str) -> bytes:
    assert "=" not in text
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _sub(keys, **kw):  # type: ignore[no-untyped-def]
    return Subscriber(
        keys=keys, on_event=lambda e: None, endpoint=ENDPOINT, clock=lambda: NOW + 1, **kw
    )


async def test_hmac_challenge_round_trip() -> None:
    sub = _sub(SharedSecretResolver({SUB_KEY.key_id: SECRET}), receipt_key=RECEIPT_KEY)
    headers, body = challenge(key=SUB_KEY)
    status, rh, rb = await sub.handle("POST", ENDPOINT, headers, body)
    assert status == 200 and rh["Content-Type"] == "application/json"
    sent, got = json.loads(body), json.loads(rb)
    assert got["type"] == "hookproof.challenge-response.v1"
    for name in CHALLENGE_FIELDS:
        assert got[name] == sent[name] and type(got[name]) is type(sent[name])
    assert set(got) == {"type", "proof", *CHALLENGE_FIELDS}
    assert _b64url_decode(got["proof"]) == hmac.new(SECRET, body, hashlib.sha256).digest()


async def test_ed25519_challenge_with_receipt_key_round_trip() -> None:
    keys = StaticKeyResolver([ENGINE_KEY.verification_key()])
    sub = _sub(keys, receipt_key=RECEIPT_KEY)
    headers, body = challenge()
    status, _, rb = await sub.handle("POST", ENDPOINT, headers, body)
    assert status == 200
    proof = _b64url_decode(json.loads(rb)["proof"])
    assert RECEIPT_KEY.private_key is not None
    RECEIPT_KEY.private_key.public_key().verify(proof, body)  # raises if wrong


async def test_no_shared_secret_and_no_receipt_key_means_no_proof() -> None:
    sub = _sub(StaticKeyResolver([ENGINE_KEY.verification_key()]))
    status, _, rb = await sub.handle("POST", ENDPOINT, *challenge())
    assert status == 200 and "proof" not in json.loads(rb)


async def test_challenge_signed_by_the_next_key_is_answered_but_deliveries_are_not() -> None:
    nxt = SigningKey.generate_ed25519("engine-k2")
    keys = StaticKeyResolver(
        [ENGINE_KEY.verification_key(), nxt.verification_key(state=KeyState.NOT_BEFORE)]
    )
    sub = _sub(keys)
    assert (await sub.handle("POST", ENDPOINT, *challenge(key=nxt)))[0] == 200
    status, _, rb = await sub.handle("POST", ENDPOINT, *delivery("e1", 1, key=nxt))
    assert status == 401 and json.loads(rb)["code"] == "key_not_yet_valid"


@pytest.mark.parametrize(
    ("kwargs", "status", "code"),
    [
        ({"endpoint": "https://evil.example.com/hook"}, 401, "bad_signature"),
        ({"expires_in": -5}, 403, "expired"),
        ({"subscription": "sub_2"}, 403, "wrong_subscription"),
    ],
)
async def test_refusals(kwargs, status, code) -> None:  # type: ignore[no-untyped-def]
    sub = _sub(StaticKeyResolver([ENGINE_KEY.verification_key()]), subscription_id="sub_1")
    if "subscription" in kwargs:
        sub.subscription_id = None  # let the signature pass, the responder pins it
        sub.challenges.subscription_id = "sub_1"
    s, _, rb = await sub.handle("POST", ENDPOINT, *challenge(**kwargs))
    assert (s, json.loads(rb)["code"]) == (status, code)


async def test_endpoint_digest_must_be_ours() -> None:
    sub = _sub(StaticKeyResolver([ENGINE_KEY.verification_key()]))
    headers, body = challenge()
    doc = json.loads(body)
    doc["endpointDigest"] = hashlib.sha256(b"https://other.example.com/").hexdigest()
    body2 = json.dumps(doc, separators=(",", ":")).encode()
    from hookproof_subscriber import sign_request

    h2 = {
        k: v
        for k, v in headers.items()
        if k not in ("Content-Digest", "Signature-Input", "Signature")
    }
    h2.update(
        sign_request("POST", ENDPOINT, h2, body2, key=ENGINE_KEY, created=NOW, expires=NOW + 60)
    )
    s, _, rb = await sub.handle("POST", ENDPOINT, h2, body2)
    assert (s, json.loads(rb)["code"]) == (403, "wrong_endpoint")


async def test_a_replayed_challenge_is_not_answered_twice() -> None:
    sub = _sub(StaticKeyResolver([ENGINE_KEY.verification_key()]))
    headers, body = challenge()
    assert (await sub.handle("POST", ENDPOINT, headers, body))[0] == 200
    s, _, rb = await sub.handle("POST", ENDPOINT, headers, body)
    assert (s, json.loads(rb)["code"]) == (401, "replayed_nonce")
    # even re-signed with a fresh nonce, the same challenge id is answered once
    from hookproof_subscriber import sign_request

    h2 = {
        k: v
        for k, v in headers.items()
        if k not in ("Content-Digest", "Signature-Input", "Signature")
    }
    h2.update(
        sign_request("POST", ENDPOINT, h2, body, key=ENGINE_KEY, created=NOW, expires=NOW + 60)
    )
    s, _, rb = await sub.handle("POST", ENDPOINT, h2, body)
    assert (s, json.loads(rb)["code"]) == (403, "replayed")


async def test_unsigned_or_tampered_challenge_is_refused_before_anything_else() -> None:
    sub = _sub(SharedSecretResolver({SUB_KEY.key_id: SECRET}))
    headers, body = challenge(key=SUB_KEY)
    tampered = body.replace(b'"generation":3', b'"generation":4')
    s, _, rb = await sub.handle("POST", ENDPOINT, headers, tampered)
    assert (s, json.loads(rb)["code"]) == (401, "digest_mismatch")
    s, _, _ = await sub.handle("POST", ENDPOINT, {"Content-Type": "application/json"}, body)
    assert s == 401
