"""The broker message: the SDK verifies it from (headers, body, destination) with the HTTP
reason codes, the official ``standardwebhooks`` library verifies it unchanged, and a broker
challenge is answered with the same ``hookproof.challenge-response.v1`` proof (pure)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from datetime import UTC, datetime

import pytest
from standardwebhooks import Webhook

from hookproof.engine.destinations.brokers.message import build_challenge_message, build_message
from hookproof.engine.destinations.brokers.spec import parse_destination
from hookproof.engine.keys.signing import Signer
from hookproof_subscriber import (
    MessageVerificationError,
    NonceCache,
    SharedSecretResolver,
    SigningKey,
    StaticKeyResolver,
    answer_broker_challenge,
    destination_digest,
    encode_whsec,
    verify_broker_message,
    verify_request,
)
from hookproof_subscriber.messages import SIG_V1_MESSAGE

from .conftest import ENGINE_KEY, event_body, message_for

DEST, _ = parse_destination(
    {
        "type": "nats",
        "url": "tls://nats.example.com",
        "subject": "orders.created",
        "stream": "ORDERS",
    }
)
OTHER, _ = parse_destination(
    {
        "type": "nats",
        "url": "tls://nats.example.com",
        "subject": "orders.deleted",
        "stream": "ORDERS",
    }
)
KEYS = StaticKeyResolver([ENGINE_KEY.verification_key()])


async def test_sig_v1_verifies_for_its_destination_only() -> None:
    msg = message_for(DEST, subscription_id="sub_9", generation=4, attempt=2)
    assert list(msg.headers)[:9] == [
        "content-type",
        "content-digest",
        "hookproof-event-id",
        "hookproof-delivery-id",
        "hookproof-subscription-id",
        "hookproof-generation",
        "hookproof-attempt",
        "webhook-id",
        "traceparent",
    ]
    assert '"@destination"' in msg.headers["signature-input"]
    assert msg.message_id == msg.headers["hookproof-delivery-id"]
    got = await verify_broker_message(
        msg.headers, msg.body, DEST.uri, keys=KEYS, subscription_id="sub_9"
    )
    assert (
        got.event.delivery_id == msg.message_id and got.event.generation == 4 and got.attempt == 2
    )
    assert got.verified == ("hookproof.sig.v1",)
    with pytest.raises(MessageVerificationError) as info:
        await verify_broker_message(msg.headers, msg.body, OTHER.uri, keys=KEYS)
    assert info.value.reason == "bad_signature"
    with pytest.raises(MessageVerificationError) as info:
        await verify_broker_message(
            msg.headers, msg.body, DEST.uri, keys=KEYS, subscription_id="sub_x"
        )
    assert info.value.reason == "bad_signature"


@pytest.mark.parametrize(
    ("mutate", "reason"),
    [
        (lambda h, b: (h, b.replace(b'"n":1', b'"n":2')), "digest_mismatch"),
        (lambda h, b: ({**h, "hookproof-generation": "9"}, b), "bad_signature"),
        (
            lambda h, b: ({k: v for k, v in h.items() if k != "hookproof-delivery-id"}, b),
            "component_missing",
        ),
        (lambda h, b: ({k: v for k, v in h.items() if k != "signature"}, b), "malformed"),
        (lambda h, b: ({**h, "hookproof-event-id": "ünï"}, b), "malformed"),
    ],
)
async def test_tampering_has_the_http_reason_codes(mutate, reason: str) -> None:  # type: ignore[no-untyped-def]
    msg = message_for(DEST)
    headers, body = mutate(dict(msg.headers), msg.body)
    with pytest.raises(MessageVerificationError) as info:
        await verify_broker_message(headers, body, DEST.uri, keys=KEYS)
    assert info.value.reason == reason


async def test_amqp_table_values_and_unknown_key() -> None:
    msg = message_for(DEST)
    table = {k: v.encode() for k, v in msg.headers.items()}  # bytes, as some AMQP tables decode
    table["hookproof-generation"] = 1  # an integer header value
    got = await verify_broker_message(table, msg.body, DEST.uri, keys=KEYS)
    assert got.event.generation == 1
    with pytest.raises(MessageVerificationError) as info:
        await verify_broker_message(msg.headers, msg.body, DEST.uri, keys=StaticKeyResolver([]))
    assert info.value.reason == "unknown_key"


async def test_an_http_signature_never_verifies_a_message_and_back() -> None:
    msg = message_for(DEST)
    res = verify_request("POST", "https://nats.example.com/", msg.headers, msg.body, keys=KEYS)
    assert not res.ok and res.reason == "component_missing"


def test_the_official_standardwebhooks_library_verifies_the_message() -> None:
    secret = secrets.token_bytes(32)
    key = SigningKey.hmac("whsec-key", secret)
    msg = message_for(DEST, signers=[Signer("standard-webhooks.v1", key)])
    assert {"webhook-id", "webhook-timestamp", "webhook-signature"} <= set(msg.headers)
    assert "signature" not in msg.headers
    payload = Webhook(encode_whsec(secret)).verify(msg.body, dict(msg.headers))
    assert payload["eventId"] == msg.headers["webhook-id"] == msg.headers["hookproof-event-id"]
    with pytest.raises(Exception):  # noqa: B017 - the library's own error type
        Webhook(encode_whsec(secret)).verify(msg.body + b" ", dict(msg.headers))


async def test_both_profiles_on_one_message_each_verify() -> None:
    secret = secrets.token_bytes(32)
    hkey = SigningKey.hmac("k-h", secret)
    msg = message_for(
        DEST, signers=[Signer("hookproof.sig.v1", hkey), Signer("standard-webhooks.v1", hkey)]
    )
    keys = SharedSecretResolver({"k-h": secret})
    got = await verify_broker_message(msg.headers, msg.body, DEST.uri, keys=keys)
    assert set(got.verified) == {"hookproof.sig.v1", "standard-webhooks.v1"}


def test_the_signed_base_covers_the_destination() -> None:
    assert SIG_V1_MESSAGE.components[0] == "@destination"
    assert "@method" not in SIG_V1_MESSAGE.components


def _challenge(
    dest_uri: str, *, expires_in: int = 300, key: SigningKey = ENGINE_KEY
) -> tuple[dict[str, str], bytes]:
    challenge_id = f"chl_{secrets.token_hex(8)}"
    expires = datetime.fromtimestamp(int(time.time()) + expires_in, UTC).strftime(
        "%Y-%m-%dT%H:%M:%SZ"
    )
    body = json.dumps(
        {
            "type": "hookproof.challenge.v1",
            "challengeId": challenge_id,
            "nonce": base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode(),
            "subscriptionId": "sub_9",
            "generation": 4,
            "endpointDigest": destination_digest(dest_uri),
            "expiresAt": expires,
            "keyId": key.key_id,
        }
    ).encode()
    msg = build_challenge_message(
        dest_uri,
        body,
        challenge_id=challenge_id,
        subscription_id="sub_9",
        generation=4,
        signers=[Signer("hookproof.sig.v1", key)],
        created=int(time.time()),
        lifetime=300,
        traceparent=f"00-{secrets.token_hex(16)}-{secrets.token_hex(8)}-01",
    )
    return msg.headers, msg.body


async def test_broker_challenge_answered_once_with_the_hmac_proof() -> None:
    secret = secrets.token_bytes(32)
    key = SigningKey.hmac("sub_9.s1", secret)
    headers, body = _challenge(DEST.uri, key=key)
    cache = NonceCache()
    keys = SharedSecretResolver({"sub_9.s1": secret})
    ans = await answer_broker_challenge(headers, body, DEST.uri, keys=keys, nonce_cache=cache)
    assert ans.ok, ans.reason
    doc = json.loads(ans.body)
    want = base64.urlsafe_b64encode(hmac.new(secret, body, hashlib.sha256).digest()).rstrip(b"=")
    assert doc["type"] == "hookproof.challenge-response.v1" and doc["proof"] == want.decode()
    assert doc["challengeId"] == ans.challenge_id == headers["hookproof-event-id"]
    again = await answer_broker_challenge(
        headers, body, DEST.uri, keys=keys, nonce_cache=NonceCache()
    )
    assert again.ok  # a fresh cache: the engine refuses the replay itself
    replay = await answer_broker_challenge(headers, body, DEST.uri, keys=keys, nonce_cache=cache)
    assert not replay.ok and replay.reason in ("replayed", "replayed_nonce")


async def test_broker_challenge_refusals() -> None:
    headers, body = _challenge(DEST.uri)
    other = await answer_broker_challenge(headers, body, OTHER.uri, keys=KEYS)
    assert not other.ok and other.reason == "bad_signature"
    receipt = SigningKey.generate_ed25519("rk")
    wrong_sub = await answer_broker_challenge(
        headers, body, DEST.uri, keys=KEYS, subscription_id="sub_other", receipt_key=receipt
    )
    assert not wrong_sub.ok and wrong_sub.reason == "wrong_subscription"
    ok = await answer_broker_challenge(headers, body, DEST.uri, keys=KEYS, receipt_key=receipt)
    assert ok.ok and "proof" in json.loads(ok.body)
    late_h, late_b = _challenge(DEST.uri, expires_in=-120)
    late = await answer_broker_challenge(late_h, late_b, DEST.uri, keys=KEYS)
    assert not late.ok and late.reason == "expired"
    # a delivery body is not a challenge
    msg = build_message(
        DEST.uri,
        event_body("evt_1"),
        event_id="evt_1",
        delivery_id="dlv_1",
        subscription_id="sub_9",
        generation=4,
        attempt=1,
        signers=[Signer("hookproof.sig.v1", ENGINE_KEY)],
        created=int(time.time()),
        lifetime=300,
        traceparent="00-" + "a" * 32 + "-" + "b" * 16 + "-01",
    )
    not_challenge = await answer_broker_challenge(msg.headers, msg.body, DEST.uri, keys=KEYS)
    assert not not_challenge.ok and not_challenge.reason == "malformed"
