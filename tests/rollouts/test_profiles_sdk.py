"""The SDK verifies either profile, or both during a dual window, and says which verified.
Pure: no database, no network."""

from __future__ import annotations

import base64
import re
from datetime import UTC, datetime
from pathlib import Path

import jsonschema_rs  # comes with schemathesis (a test dependency)
import msgspec
from hypothesis import given
from hypothesis import strategies as st
from standardwebhooks import Webhook

from hookproof.engine.keys.signing import Signer, sign_headers
from hookproof_subscriber import (
    KeyState,
    Reason,
    SigningKey,
    StaticKeyResolver,
    VerificationKey,
    averify_any,
    decode_whsec,
    encode_whsec,
    jwk_to_verification_key,
    verify_standard,
)

ROOT = Path(__file__).parents[2]
DOC = (ROOT / "schemas" / "standard_webhooks.md").read_text()
SCHEMA = msgspec.json.decode(
    (ROOT / "schemas" / "standard-webhooks.v1.headers.schema.json").read_bytes()
)
BODY = (
    b'{"type":"order.created","eventId":"evt_01J9Z6","version":"1.0","aggregateId":"ord_77",'
    b'"aggregateVersion":4,"occurredAt":"2025-01-15T10:00:00Z","payload":{"total":42}}'
)
SECRET = b"secret-secret-secret-secret-32bytes"
URL = "https://hooks.example.com/hookproof"
NOW = 1736935300


def _example(marker: str) -> dict[str, str]:
    m = re.search(rf"<!-- example:{marker} -->\n```http\n(.*?)\n```", DOC, re.S)
    assert m, marker
    return dict(line.split(": ", 1) for line in m[1].splitlines())


def test_hmac_example_is_what_the_official_package_signs() -> None:
    h = _example("standard-hmac")
    official = Webhook(encode_whsec(SECRET))
    ts = datetime.fromtimestamp(int(h["webhook-timestamp"]), tz=UTC)
    assert official.sign(h["webhook-id"], ts, BODY.decode()) == h["webhook-signature"]
    key = VerificationKey.hmac("s", SECRET)
    assert verify_standard(h, BODY, keys=[key], now=NOW).reason is Reason.OK


def test_ed25519_example_verifies() -> None:
    h = _example("standard-ed25519")
    jwk = {
        "kty": "OKP",
        "crv": "Ed25519",
        "kid": "test-key-ed25519",
        "x": "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs",
    }
    keys = StaticKeyResolver([jwk_to_verification_key(jwk)])
    assert verify_standard(h, BODY, keys=keys, now=NOW).reason is Reason.OK
    assert verify_standard(h, BODY + b" ", keys=keys, now=NOW).reason is Reason.BAD_SIGNATURE


def test_whsec_round_trip_and_refusals() -> None:
    assert decode_whsec(encode_whsec(SECRET)) == SECRET
    for bad in ("whsec_***", "whsec_" + base64.b64encode(b"x" * 10).decode(), ""):
        try:
            decode_whsec(bad)
        except ValueError:
            continue
        raise AssertionError(bad)


def _headers(signers: list[Signer], msg_id: str = "evt-1") -> dict[str, str]:
    base = {
        "Content-Type": "application/json",
        "Webhook-Id": msg_id,
        "Webhook-Delivery-Id": "dlv-1",
        "Webhook-Attempt": "1",
        "Webhook-Subscription": "sub-1",
        "Webhook-Generation": "1",
        "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    }
    return {**base, **sign_headers("POST", URL, base, BODY, signers, created=NOW, lifetime=300)}


ENGINE = SigningKey.generate_ed25519("k-old")
NEXT = SigningKey.generate_ed25519("k-new")
KEYS = StaticKeyResolver([ENGINE.verification_key(), NEXT.verification_key()])


async def test_dual_signed_request_both_profiles_verify_each_on_its_own() -> None:
    h = _headers([Signer("standard-webhooks.v1", ENGINE), Signer("hookproof.sig.v1", ENGINE)])
    jsonschema_rs.validate(SCHEMA, {k.lower(): v for k, v in h.items()})
    res = await averify_any("POST", URL, h, BODY, keys=KEYS, now=NOW)
    assert res.ok and res.verified == ("hookproof.sig.v1", "standard-webhooks.v1")
    only_sig = await averify_any(
        "POST", URL, h, BODY, keys=KEYS, now=NOW, accept=("hookproof.sig.v1",)
    )
    assert only_sig.verified == ("hookproof.sig.v1",)
    # the standard signature broken: still accepted, and it says only sig.v1 verified
    broken = dict(h, **{"webhook-signature": "v1a," + base64.b64encode(b"\0" * 64).decode()})
    res = await averify_any("POST", URL, broken, BODY, keys=KEYS, now=NOW)
    assert res.ok and res.verified == ("hookproof.sig.v1",)
    assert res.results["standard-webhooks.v1"].reason is Reason.BAD_SIGNATURE
    # a standard-only receiver refuses it
    res = await averify_any(
        "POST", URL, broken, BODY, keys=KEYS, now=NOW, accept=("standard-webhooks.v1",)
    )
    assert not res.ok and res.reason is Reason.BAD_SIGNATURE


async def test_two_engine_keys_under_two_labels() -> None:
    h = _headers([Signer("hookproof.sig.v1", ENGINE), Signer("hookproof.sig.v1", NEXT)])
    assert (
        h["Signature-Input"].startswith("hookproof=(")
        and ", hookproof-next=(" in h["Signature-Input"]
    )
    res = await averify_any("POST", URL, h, BODY, keys=KEYS, now=NOW)
    assert res.ok and res.verified == ("hookproof.sig.v1",)
    assert set(res.key_ids) == {"k-old", "k-new"}
    old_only = StaticKeyResolver([ENGINE.verification_key()])
    res = await averify_any("POST", URL, h, BODY, keys=old_only, now=NOW)
    assert res.ok and res.key_ids == ("k-old",)


def test_standard_reasons() -> None:
    h = _headers([Signer("standard-webhooks.v1", ENGINE)])
    key = ENGINE.verification_key()
    assert verify_standard(h, BODY, keys=[key], now=NOW).ok
    assert verify_standard(h, BODY, keys=[key], now=NOW + 301).reason is Reason.EXPIRED
    assert verify_standard(h, BODY, keys=[key], now=NOW - 301).reason is Reason.NOT_YET_VALID
    revoked = ENGINE.verification_key(state=KeyState.REVOKED)
    assert verify_standard(h, BODY, keys=[revoked], now=NOW).reason is Reason.REVOKED_KEY
    hmac_only = [VerificationKey.hmac("s", SECRET)]
    assert verify_standard(h, BODY, keys=hmac_only, now=NOW).reason is Reason.UNKNOWN_KEY
    no_sig = {k: v for k, v in h.items() if k != "webhook-signature"}
    assert verify_standard(no_sig, BODY, keys=[key], now=NOW).reason is Reason.MALFORMED


@given(
    st.dictionaries(
        st.sampled_from(["webhook-id", "webhook-timestamp", "webhook-signature", "x"]),
        st.text(max_size=80),
    ),
    st.binary(max_size=64),
)
def test_verify_standard_never_raises(headers: dict[str, str], body: bytes) -> None:
    res = verify_standard(headers, body, keys=[ENGINE.verification_key()], now=NOW)
    assert isinstance(res.reason, Reason) and not res.ok
