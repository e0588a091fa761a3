"""schemas/receipt.md example verifies; SDK output matches the JSON Schemas."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from hookproof_subscriber import (
    RECEIPT_V1,
    Reason,
    SigningKey,
    StaticKeyResolver,
    build_challenge_response,
    build_receipt,
    content_digest,
    jwk_to_verification_key,
    parse_receipt,
    verify_request,
)

from .helpers import SECRET, challenge

SCHEMAS = Path(__file__).parents[2] / "schemas"
DOC = (SCHEMAS / "receipt.md").read_text()


def test_receipt_example_verifies() -> None:
    m = re.search(r"<!-- example:receipt -->\n```http\n(.*?)\n```", DOC, re.S)
    assert m
    head, body = m[1].split("\n\n", 1)
    headers = dict(line.split(": ", 1) for line in head.splitlines()[1:])
    jwk = {
        "kty": "OKP",
        "crv": "Ed25519",
        "kid": "rk_01J9Z8",
        "x": "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs",
    }
    res = verify_request(
        "POST",
        "https://hookproof.example.com/v1/receipts",
        headers,
        body.encode(),
        keys=StaticKeyResolver([jwk_to_verification_key(jwk)]),
        now=1736935300,
        profile=RECEIPT_V1,
    )
    assert res.reason is Reason.OK
    assert parse_receipt(body.encode()).operation_id == "op-7c1f"


def _check(schema: dict, doc: dict) -> None:  # type: ignore[type-arg]
    """A small subset of JSON Schema: enough for these flat documents."""
    assert set(schema["required"]) <= set(doc)
    if schema.get("additionalProperties") is False:
        assert set(doc) <= set(schema["properties"])
    for name, value in doc.items():
        rule = schema["properties"][name]
        if "const" in rule:
            assert value == rule["const"]
        if "enum" in rule:
            assert value in rule["enum"]
        if rule.get("type") == "string":
            assert isinstance(value, str)
            if "pattern" in rule:
                assert re.search(rule["pattern"], value), (name, value)
        if rule.get("type") == "integer":
            assert type(value) is int and value >= rule.get("minimum", value)


@pytest.mark.parametrize("result", ["applied", "rejected", "duplicate"])
def test_receipts_match_the_schema(result: str) -> None:
    schema = json.loads((SCHEMAS / "application-receipt.v1.schema.json").read_text())
    receipt = build_receipt(
        subscription_id="s",
        event_id="e",
        delivery_id="d",
        payload_digest=content_digest(b"x"),
        result=result,
    )
    _check(schema, json.loads(receipt.to_bytes()))
    for example in schema["examples"]:
        _check(schema, example)
        parse_receipt(json.dumps(example).encode())


def test_challenge_responses_match_the_schema() -> None:
    schema = json.loads((SCHEMAS / "challenge-response.v1.schema.json").read_text())
    _, body = challenge()
    for kwargs in ({}, {"secret": SECRET}, {"receipt_key": SigningKey.generate_ed25519("r")}):
        _check(schema, json.loads(build_challenge_response(body, **kwargs)))  # type: ignore[arg-type]
