"""RFC 9421 Appendix B.2.5 / B.2.6 and RFC 9530 vectors."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from hookproof_subscriber import VerificationKey, content_digest, raw_verify
from hookproof_subscriber.digest import parse_content_digest, verify_content_digest
from hookproof_subscriber.rfc9421 import build_signature_base, normalize_headers, parse_signature

VECTORS = Path(__file__).parent.parent / "conformance" / "rfc9421"
V = json.loads((VECTORS / "vectors.json").read_text())
REQ = V["test_request"]
URL = REQ["assumed_target_uri"]


def _key(name: str) -> VerificationKey:
    if name == "B.2.5":
        secret = base64.b64decode((VECTORS / "test-shared-secret.b64").read_text().strip())
        return VerificationKey.hmac("test-shared-secret", secret)
    pem = (VECTORS / "test-key-ed25519.pub.pem").read_bytes()
    return VerificationKey.ed25519_from_pem("test-key-ed25519", pem)


def _headers(name: str) -> list[tuple[str, str]]:
    v = V[name]
    return [
        *map(tuple, REQ["headers"]),
        ("Signature-Input", v["signature_input_header"]),
        ("Signature", v["signature_header"]),
    ]


@pytest.mark.parametrize("name", ["B.2.5", "B.2.6"])
def test_rfc_vector_verifies(name: str) -> None:
    assert raw_verify("POST", URL, _headers(name), label=V[name]["label"], key=_key(name)) == (
        True,
        "ok",
    )


@pytest.mark.parametrize(("name", "file"), [("B.2.5", "b25"), ("B.2.6", "b26")])
def test_signature_base_is_byte_exact(name: str, file: str) -> None:
    hdrs = normalize_headers(_headers(name))
    parsed = parse_signature(hdrs, V[name]["label"])
    base = build_signature_base("POST", URL, hdrs, parsed.components, parsed.signature_params)
    assert base == (VECTORS / f"{file}.signature-base.txt").read_bytes()
    assert base.decode() == V[name]["signature_base"]


@pytest.mark.parametrize("name", ["B.2.5", "B.2.6"])
def test_rfc_vector_with_altered_date_fails(name: str) -> None:
    hdrs = [(k, "Tue, 20 Apr 2021 02:07:56 GMT" if k == "Date" else v) for k, v in _headers(name)]
    assert raw_verify("POST", URL, hdrs, label=V[name]["label"], key=_key(name)) == (
        False,
        "bad_signature",
    )


def test_rfc_vector_under_the_wrong_key_fails() -> None:
    res = raw_verify("POST", URL, _headers("B.2.6"), label="sig-b26", key=_key("B.2.5"))
    assert res == (False, "alg_mismatch") or res[0] is False


def test_the_signer_reproduces_the_rfc_b26_signature() -> None:
    # Ed25519 is deterministic: our base + key gives the RFC's exact signature bytes.
    from hookproof_subscriber import SigningKey
    from hookproof_subscriber.rfc9421 import sign_bytes

    key = SigningKey.ed25519_from_pem(
        "test-key-ed25519", (VECTORS / "test-key-ed25519.priv.pem").read_bytes()
    )
    sig = sign_bytes(key, (VECTORS / "b26.signature-base.txt").read_bytes())
    assert V["B.2.6"]["signature_header"] == f"sig-b26=:{base64.b64encode(sig).decode()}:"


def test_content_digest_vectors() -> None:
    cd = json.loads((VECTORS / "content_digest.json").read_text())
    for ex in cd["examples"]:
        body = ex["body_utf8"].encode()
        assert content_digest(body) == f"sha-256=:{ex['sha-256']}:"
        assert content_digest(body, "sha-512") == f"sha-512=:{ex['sha-512']}:"
        both = f"sha-256=:{ex['sha-256']}:, sha-512=:{ex['sha-512']}:"
        assert set(parse_content_digest(both)) == {"sha-256", "sha-512"}
        assert verify_content_digest(both, body)
        assert not verify_content_digest(both, body + b" ")


@pytest.mark.parametrize("name", ["B.2.5", "B.2.6"])
def test_rfc_vector_verifies_through_the_library_path(name: str) -> None:
    from hookproof_subscriber.rfc9421 import check_signature

    hdrs = normalize_headers(_headers(name))
    parsed = parse_signature(hdrs, V[name]["label"], fast=False)
    assert not parsed.fast
    base = build_signature_base("POST", URL, hdrs, parsed.components, parsed.signature_params)
    assert check_signature(base, "POST", URL, hdrs, parsed, _key(name), tag=None)
    bad = {**hdrs, "date": "Tue, 20 Apr 2021 02:07:56 GMT"}
    assert not check_signature(base, "POST", URL, bad, parsed, _key(name), tag=None)
