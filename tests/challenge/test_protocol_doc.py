"""``schemas/challenge.md``: its worked examples are real bytes (signatures verify, proofs
check, the engine accepts the answers), its reason-code tables match the code, and the JSON
Schemas accept what the engine and the SDK produce and refuse what they must."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from hookproof.engine.challenge.protocol import (
    MISMATCH_CODES,
    REASON_CODES,
    Challenge,
    build_challenge,
    check_response,
)
from hookproof.engine.egress import FAILURE_CODES
from hookproof_subscriber import (
    SIG_V1,
    Reason,
    SigningKey,
    StaticKeyResolver,
    VerificationKey,
    build_challenge_response,
    endpoint_digest,
    jwk_to_verification_key,
    public_jwk,
    verify_request,
)

SCHEMAS = Path(__file__).parents[2] / "schemas"
DOC = (SCHEMAS / "challenge.md").read_text()
ENDPOINT = "https://hooks.example.com/hookproof"
NOW = 1736935200


def _block(name: str) -> str:
    m = re.search(rf"<!-- example:{name} -->\n```\w+\n(.*?)\n```", DOC, re.S)
    assert m, name
    return m[1]


def _request(name: str) -> tuple[dict[str, str], bytes]:
    head, body = _block(name).split("\n\n", 1)
    lines = head.splitlines()
    assert lines[0] == "POST /hookproof HTTP/1.1"
    headers = dict(line.split(": ", 1) for line in lines[1:])
    assert int(headers["Content-Length"]) == len(body.encode())
    return headers, body.encode()


def _challenge_of(body: bytes) -> Challenge:
    doc = json.loads(body)
    return Challenge(
        doc["challengeId"],
        doc["nonce"],
        doc["subscriptionId"],
        doc["generation"],
        doc["endpointDigest"],
        doc["expiresAt"],
        doc["keyId"],
        body,
    )


def _check(challenge: Challenge, answer: bytes, **kwargs: Any) -> str | None:
    now = datetime.fromtimestamp(NOW, UTC) + timedelta(seconds=1)
    return check_response(
        challenge, status=200, content_type="application/json", body=answer, now=now, **kwargs
    )


def test_ed25519_example_verifies_and_the_answers_pass() -> None:
    jwk = json.loads(_block("engine-jwk"))
    headers, body = _request("request-ed25519")
    keys = StaticKeyResolver([jwk_to_verification_key(jwk)])
    res = verify_request("POST", ENDPOINT, headers, body, keys=keys, now=NOW, profile=SIG_V1)
    assert res.reason is Reason.OK
    assert (
        headers["Webhook-Id"] == headers["Webhook-Delivery-Id"] == json.loads(body)["challengeId"]
    )
    assert headers["Webhook-Attempt"] == "1"
    assert json.loads(body)["endpointDigest"] == endpoint_digest(ENDPOINT)
    challenge = _challenge_of(body)

    none = _block("response-none").encode()
    assert build_challenge_response(body) == none
    assert _check(challenge, none) is None

    receipt_jwk = json.loads(_block("receipt-jwk"))
    seed = hashlib.sha256(b"hookproof challenge example receipt key").digest()
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    rk = SigningKey("rk_01J9Z8", "ed25519", Ed25519PrivateKey.from_private_bytes(seed))
    assert public_jwk(rk) == receipt_jwk
    answer = _block("response-receipt").encode()
    assert build_challenge_response(body, receipt_key=rk) == answer
    assert _check(challenge, answer, receipt_public_jwk=receipt_jwk) is None
    assert _check(challenge, none, receipt_public_jwk=receipt_jwk) == "missing_proof"


def test_hmac_example_verifies_and_the_answer_passes() -> None:
    secret_b64 = _block("secret")
    secret = base64.b64decode(secret_b64)
    headers, body = _request("request-hmac")
    kid = json.loads(body)["keyId"]
    keys = StaticKeyResolver([VerificationKey.hmac(kid, secret_b64)])
    res = verify_request("POST", ENDPOINT, headers, body, keys=keys, now=NOW, profile=SIG_V1)
    assert res.reason is Reason.OK
    answer = _block("response-hmac").encode()
    assert build_challenge_response(body, secret=secret) == answer
    challenge = _challenge_of(body)
    assert _check(challenge, answer, hmac_secret=secret) is None
    assert _check(challenge, answer, hmac_secret=b"x" * 32) == "bad_proof"
    import hmac as _hmac

    mac_hex = re.search(r"HMAC-SHA256\(secret, body\) is `([0-9a-f]{64})`", DOC)
    assert mac_hex and mac_hex[1] == _hmac.new(secret, body, hashlib.sha256).hexdigest()


def _documented_codes(section: str) -> set[str]:
    start = DOC.index(section)
    end = DOC.index("\n## ", start)
    return set(re.findall(r"^\| `([a-z_]+)`", DOC[start:end], re.M)) | set(
        re.findall(r"`([a-z_]+)`(?:, |\s*\|)", DOC[start:end])
    )


def test_reason_codes_are_documented() -> None:
    documented = _documented_codes("## 6. How hookproof checks")
    assert REASON_CODES <= documented
    assert set(MISMATCH_CODES.values()) <= documented
    assert FAILURE_CODES <= documented
    service = {
        "challenge_consumed",
        "challenge_not_pending",
        "stale_generation",
        "endpoint_changed",
        "address_not_pinned",
        "secret_unavailable",
        "state_not_challengeable",
    }
    assert service <= documented
    source = (Path(__file__).parents[2] / "engine" / "challenge" / "decide.py").read_text()
    for code in service:
        assert f'"{code}"' in source, code


# -- JSON Schemas (a small validator: enough for these flat documents) ----------------------


def _valid(schema: dict[str, Any], doc: Any) -> bool:
    if not isinstance(doc, dict) or not set(schema["required"]) <= set(doc):
        return False
    if schema.get("additionalProperties") is False and not set(doc) <= set(schema["properties"]):
        return False
    for name, value in doc.items():
        rule = schema["properties"][name]
        if "const" in rule and value != rule["const"]:
            return False
        if rule.get("type") == "string":
            if not isinstance(value, str) or len(value) < rule.get("minLength", 0):
                return False
            if "pattern" in rule and not re.search(rule["pattern"], value):
                return False
        if rule.get("type") == "integer" and (
            type(value) is not int or value < rule.get("minimum", value)
        ):
            return False
    return True


CHALLENGE_SCHEMA = json.loads((SCHEMAS / "challenge.schema.json").read_text())
RESPONSE_SCHEMA = json.loads((SCHEMAS / "challenge-response.schema.json").read_text())


def _engine_challenge() -> Challenge:
    return build_challenge(
        subscription_id="sub_" + "a" * 24,
        generation=2,
        endpoint_digest=endpoint_digest(ENDPOINT),
        key_id="k_1",
        now=datetime.now(UTC),
        ttl_s=300,
    )


def test_schemas_accept_engine_challenges_and_sdk_answers() -> None:
    for _ in range(20):
        challenge = _engine_challenge()
        assert _valid(CHALLENGE_SCHEMA, json.loads(challenge.body))
        rk = SigningKey.generate_ed25519("rk")
        for kwargs in ({}, {"secret": b"s" * 32}, {"receipt_key": rk}):
            answer = json.loads(build_challenge_response(challenge.body, **kwargs))  # type: ignore[arg-type]
            assert _valid(RESPONSE_SCHEMA, answer), answer
    for name in ("response-none", "response-receipt", "response-hmac"):
        assert _valid(RESPONSE_SCHEMA, json.loads(_block(name)))
    for name in ("request-ed25519", "request-hmac"):
        assert _valid(CHALLENGE_SCHEMA, json.loads(_request(name)[1]))


@pytest.mark.parametrize(
    "change",
    [
        {"generation": "3"},
        {"generation": 3.5},
        {"nonce": "short"},
        {"endpointDigest": "A" * 64},
        {"expiresAt": "2025-01-15T10:05:00+00:00"},
        {"proof": "has=padding=="},
        {"extra": True},
        {"type": "hookproof.challenge.v1"},
    ],
)
def test_response_schema_refuses(change: dict[str, Any]) -> None:
    doc = {**json.loads(_block("response-none")), **change}
    assert not _valid(RESPONSE_SCHEMA, doc)


def test_same_members_as_the_v1_response_schema() -> None:
    v1 = json.loads((SCHEMAS / "challenge-response.v1.schema.json").read_text())
    assert set(v1["properties"]) == set(RESPONSE_SCHEMA["properties"])
    assert v1["required"] == RESPONSE_SCHEMA["required"]
    assert set(CHALLENGE_SCHEMA["properties"]) == set(RESPONSE_SCHEMA["properties"]) - {"proof"}
