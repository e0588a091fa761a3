"""The worked examples in schemas/signature_profile.md verify (the document stays true)."""

from __future__ import annotations

import re
from pathlib import Path

from hookproof_subscriber import (
    PROFILE_COMPONENTS,
    RECEIPT_V1,
    SIG_V1,
    Reason,
    SharedSecretResolver,
    StaticKeyResolver,
    jwk_to_verification_key,
    verify_request,
)

DOC = (Path(__file__).parents[2] / "schemas" / "signature_profile.md").read_text()
URL = "https://hooks.example.com/hookproof?tenant=acme"
NOW = 1736935300


def _http_block(marker: str) -> str:
    m = re.search(rf"<!-- example:{marker} -->\n```http\n(.*?)\n```", DOC, re.S)
    assert m, marker
    return m[1]


def _request() -> tuple[dict[str, str], bytes]:
    head, body = _http_block("ed25519").split("\n\n", 1)
    headers = dict(line.split(": ", 1) for line in head.splitlines()[1:])
    return headers, body.encode()


def test_ed25519_example_verifies() -> None:
    headers, body = _request()
    jwk = {
        "kty": "OKP",
        "crv": "Ed25519",
        "kid": "test-key-ed25519",
        "x": "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs",
    }
    keys = StaticKeyResolver([jwk_to_verification_key(jwk)])
    assert verify_request("POST", URL, headers, body, keys=keys, now=NOW).reason is Reason.OK


def test_hmac_example_verifies() -> None:
    headers, body = _request()
    headers.update(dict(line.split(": ", 1) for line in _http_block("hmac-sha256").splitlines()))
    secret = "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTMyYnl0ZXM="
    keys = SharedSecretResolver({"sub_01J9Z5.s1": secret})
    assert verify_request("POST", URL, headers, body, keys=keys, now=NOW).reason is Reason.OK


def test_document_names_the_profile_constants() -> None:
    assert " ".join(f'"{c}"' for c in PROFILE_COMPONENTS[:5]) in DOC.replace("\n    ", " ")
    for profile in (SIG_V1, RECEIPT_V1):
        assert profile.tag in DOC and f"`{profile.label}`" in DOC
    for reason in Reason:
        assert f"`{reason.value}`" in DOC
