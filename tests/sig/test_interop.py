"""Our signer against the independent PyPI ``http_message_signatures`` (and back)."""

from __future__ import annotations

import datetime
import time
from dataclasses import dataclass, field

import pytest
from http_message_signatures import (
    HTTPMessageSigner,
    HTTPMessageVerifier,
    InvalidSignature,
    MappingKeyResolver,
    algorithms,
)

from hookproof_subscriber import PROFILE_COMPONENTS, SIG_V1, Reason, verify_request

from .helpers import BODY, ED_KEY, HEADERS, HMAC_KEY, RESOLVER, URL, signed


@dataclass
class Message:
    method: str
    url: str
    headers: dict[str, str] = field(default_factory=dict)


def _their_verifier(alg: str) -> HTTPMessageVerifier:
    if alg == "ed25519":
        assert ED_KEY.private_key is not None
        keys = {ED_KEY.key_id: ED_KEY.private_key.public_key()}
        algorithm: type = algorithms.ED25519
    else:
        keys = {HMAC_KEY.key_id: HMAC_KEY.secret}
        algorithm = algorithms.HMAC_SHA256
    return HTTPMessageVerifier(
        signature_algorithm=algorithm,
        key_resolver=MappingKeyResolver(public_keys=keys, private_keys=keys),
    )


@pytest.mark.parametrize("key", [ED_KEY, HMAC_KEY], ids=["ed25519", "hmac-sha256"])
def test_our_signature_verifies_with_http_message_signatures(key) -> None:  # type: ignore[no-untyped-def]
    now = int(time.time())
    msg = Message("POST", URL, signed(key, created=now, expires=now + 300))
    results = _their_verifier(key.alg).verify(
        msg,
        max_age=None,
        expect_tag=SIG_V1.tag,
        expect_label=SIG_V1.label,
        require_components=PROFILE_COMPONENTS,
        body=BODY,
    )
    assert len(results) == 1
    res = results[0]
    assert res.label == "hookproof"
    assert res.parameters["tag"] == "hookproof.sig.v1"
    assert res.parameters["keyid"] == key.key_id
    assert res.parameters["alg"] == key.alg
    assert res.body == BODY
    assert list(res.covered_components)[:-1] == [f'"{c}"' for c in PROFILE_COMPONENTS]


@pytest.mark.parametrize("key", [ED_KEY, HMAC_KEY], ids=["ed25519", "hmac-sha256"])
def test_they_reject_what_we_reject(key) -> None:  # type: ignore[no-untyped-def]
    now = int(time.time())
    hdrs = signed(key, created=now, expires=now + 300)
    hdrs["Webhook-Generation"] = "4"
    with pytest.raises(InvalidSignature):
        _their_verifier(key.alg).verify(
            Message("POST", URL, hdrs),
            max_age=None,
            expect_tag=SIG_V1.tag,
            expect_label="hookproof",
            body=BODY,
        )
    with pytest.raises(InvalidSignature):
        _their_verifier(key.alg).verify(
            Message("POST", URL, signed(key, created=now, expires=now + 300)),
            max_age=None,
            expect_tag=SIG_V1.tag,
            expect_label="hookproof",
            body=BODY + b" ",
        )


@pytest.mark.parametrize("key", [ED_KEY, HMAC_KEY], ids=["ed25519", "hmac-sha256"])
def test_their_signature_verifies_with_ours(key) -> None:  # type: ignore[no-untyped-def]
    now = int(time.time())
    if key.alg == "ed25519":
        keys = {key.key_id: key.private_key}
        algorithm: type = algorithms.ED25519
    else:
        keys = {key.key_id: key.secret}
        algorithm = algorithms.HMAC_SHA256
    signer = HTTPMessageSigner(
        signature_algorithm=algorithm,
        key_resolver=MappingKeyResolver(public_keys={}, private_keys=keys),
    )
    msg = Message("POST", URL, dict(HEADERS))
    signer.sign(
        msg,
        key_id=key.key_id,
        created=datetime.datetime.fromtimestamp(now, datetime.UTC),
        expires=datetime.datetime.fromtimestamp(now + 300, datetime.UTC),
        nonce="their-nonce-1",
        label="hookproof",
        tag="hookproof.sig.v1",
        covered_component_ids=PROFILE_COMPONENTS,
        body=BODY,
    )
    res = verify_request("POST", URL, msg.headers, BODY, keys=RESOLVER, now=now)
    assert res.reason is Reason.OK, res
    assert (
        verify_request("POST", URL, msg.headers, BODY + b"\n", keys=RESOLVER, now=now).reason
        is Reason.DIGEST_MISMATCH
    )


def test_a_receipt_signed_by_http_message_signatures_verifies_with_ours() -> None:
    # a subscriber on another stack signs its receipt with the library under our profile
    from hookproof_subscriber import RECEIPT_COMPONENTS, RECEIPT_V1

    now = int(time.time())
    assert ED_KEY.private_key is not None
    signer = HTTPMessageSigner(
        signature_algorithm=algorithms.ED25519,
        key_resolver=MappingKeyResolver(
            public_keys={}, private_keys={ED_KEY.key_id: ED_KEY.private_key}
        ),
    )
    url = "https://hookproof.example.com/v1/receipts"
    msg = Message("POST", url, {"Content-Type": "application/json"})
    signer.sign(
        msg,
        key_id=ED_KEY.key_id,
        created=datetime.datetime.fromtimestamp(now, datetime.UTC),
        expires=datetime.datetime.fromtimestamp(now + 300, datetime.UTC),
        label=RECEIPT_V1.label,
        tag=RECEIPT_V1.tag,
        covered_component_ids=RECEIPT_COMPONENTS,
        body=BODY,
    )
    res = verify_request("POST", url, msg.headers, BODY, keys=RESOLVER, now=now, profile=RECEIPT_V1)
    assert res.reason is Reason.OK, res
    msg.headers["Content-Type"] = "text/plain"
    res = verify_request("POST", url, msg.headers, BODY, keys=RESOLVER, now=now, profile=RECEIPT_V1)
    assert res.reason is Reason.BAD_SIGNATURE
