"""The catalogue's OpenAPI 3.1 export (validated by openapi-spec-validator), and schemas that
would make validation unbounded: refused when defined, or bounded by construction."""

from __future__ import annotations

from typing import Any

import pytest
from openapi_spec_validator import validate
from openapi_spec_validator.validation.exceptions import OpenAPIValidationError

from hookproof.engine.event_types.limits import (
    MAX_PATTERNS,
    MAX_SCHEMA_BYTES,
    MAX_SCHEMA_DEPTH,
    MAX_UNFOLDED_NODES,
    MAX_WORK,
    SchemaInvalid,
    unfolded_size,
)
from hookproof.engine.runtime.daemon import Engine

from .conftest import ORDER_EXAMPLE, ORDER_SCHEMA, Api, new_tenant, order, order_type

_SIG_V1 = {"Signature", "Signature-Input", "Content-Digest", "Webhook-Id"}
_STANDARD = {"webhook-timestamp", "webhook-signature"}


async def test_openapi_export_is_a_valid_openapi_31_document(engine: Engine, api: Api) -> None:
    t = await new_tenant(engine, "acme")
    two = order_type(
        versions={
            "1": {"schema": ORDER_SCHEMA, "example": ORDER_EXAMPLE},
            "2": {"schema": {"type": "object", "required": ["id"]}, "example": {"id": 1}},
        },
        deprecated=True,
    )
    assert (await api.define(t, "order.created", two))[0] == 200
    body = {"description": "refund", "versions": {"1": {"schema": True, "example": None}}}
    assert (await api.define(t, "refund.issued", body))[0] == 200

    status, doc, _ = await api.call("GET", "/v1/event-types/openapi.json", t.token)
    assert status == 200
    validate(doc)  # raises on anything that is not OpenAPI 3.1
    assert doc["openapi"] == "3.1.0"
    assert set(doc["webhooks"]) == {"order.created.v1", "order.created.v2", "refund.issued.v1"}
    post = doc["webhooks"]["order.created.v1"]["post"]
    assert post["deprecated"] is True
    media = post["requestBody"]["content"]["application/json"]
    assert media["schema"]["properties"]["payload"] == ORDER_SCHEMA
    assert (
        media["example"]["payload"] == ORDER_EXAMPLE and media["example"]["type"] == "order.created"
    )
    headers = {p["name"] for p in post["parameters"] if p["in"] == "header"}
    assert _SIG_V1 | _STANDARD <= headers
    profiles = doc["x-hookproof-signature-profiles"]
    assert {"Signature", "Signature-Input"} <= set(profiles["hookproof.sig.v1"]["headers"])
    assert {"Webhook-Id", *_STANDARD} <= set(profiles["standard-webhooks.v1"]["headers"])
    assert doc["webhooks"]["order.created.v2"]["post"]["requestBody"]["content"][
        "application/json"
    ]["schema"]["properties"]["payload"] == {"type": "object", "required": ["id"]}


def test_the_validator_used_does_fail_a_broken_document() -> None:
    """The check above can fail: a webhook without responses is not OpenAPI 3.1."""
    broken: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {"title": "x", "version": "1"},
        "webhooks": {"x": {"post": {"parameters": [{"name": "a"}]}}},
    }
    try:
        validate(broken)
    except OpenAPIValidationError:
        return
    raise AssertionError("openapi-spec-validator accepted a broken document")


def _chain(n: int) -> dict[str, Any]:
    """anyOf over two references to the next link, n links: 2**n paths to one leaf."""
    defs: dict[str, Any] = {
        f"d{i}": {"anyOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]}
        for i in range(n)
    }
    defs[f"d{n}"] = {"type": "string"}
    return {"$defs": defs, "$ref": "#/$defs/d0"}


async def _refused(api: Api, t: Any, schema: Any, example: Any = "x") -> dict[str, Any]:
    status, doc = await api.define(
        t,
        "hostile",
        {"description": "x", "versions": {"1": {"schema": schema, "example": example}}},
    )
    assert status == 400, doc
    return doc


async def test_pathological_schemas_are_refused(engine: Engine, api: Api) -> None:
    t = await new_tenant(engine, "acme")
    # exponential: validating a non-string would walk 2**40 paths
    doc = await _refused(api, t, _chain(40), example=1)
    assert doc["code"] == "schema_invalid" and str(MAX_UNFOLDED_NODES) in doc["detail"]
    # deep nesting
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(MAX_SCHEMA_DEPTH):  # one level each: the request's own limit is 64
        deep = {"not": deep}
    doc = await _refused(api, t, deep)
    assert doc["code"] == "schema_invalid" and "nests" in doc["detail"]
    # huge (inside the request limit, over the schema limit)
    big = {"enum": ["x" * 1000 + str(i) for i in range(MAX_SCHEMA_BYTES // 1000 + 1)]}
    doc = await _refused(api, t, big)
    assert doc["code"] == "schema_invalid" and str(MAX_SCHEMA_BYTES) in doc["detail"]
    # a regex whose compiled program is too large
    doc = await _refused(api, t, {"type": "string", "pattern": "(\\w{100}){100}"})
    assert doc["code"] == "schema_invalid"
    status, _, _ = await api.call("GET", "/v1/event-types/hostile", t.token)
    assert status == 404


async def test_catastrophic_regex_runs_in_linear_time(engine: Engine, api: Api) -> None:
    """``^(a+)+$`` backtracks exponentially in Python's ``re``; Rust's regex engine (what
    jsonschema-rs compiles ``pattern`` with) matches it in one pass: the 100,000-character
    payload below is judged and refused, not left spinning (pytest's timeout would end it)."""
    t = await new_tenant(engine, "acme")
    schema = {"type": "object", "properties": {"s": {"type": "string", "pattern": "^(a+)+$"}}}
    body = {"description": "x", "versions": {"1": {"schema": schema, "example": {"s": "aaa"}}}}
    assert (await api.define(t, "regex", body))[0] == 200
    status, doc = await api.publish(t, order("r1", {"s": "a" * 100_000 + "!"}, topic="regex"))
    assert status == 400 and doc["code"] == "payload_schema_invalid"
    assert doc["errors"][0]["pointer"] == "/s" and len(doc["errors"][0]["message"]) <= 300
    status, doc = await api.publish(t, order("r2", {"s": "a" * 100_000}, topic="regex"))
    assert status == 202, doc


async def test_the_largest_allowed_fan_out_is_accepted(engine: Engine, api: Api) -> None:
    """The unfolded-size limit is what it says: a chain just inside it is a valid type."""
    t = await new_tenant(engine, "acme")
    n = 1
    while 3 * 2 ** (n + 2) < MAX_UNFOLDED_NODES:  # the chain of n links unfolds to ~3 * 2**n
        n += 1
    status, doc = await api.define(
        t, "wide", {"description": "x", "versions": {"1": {"schema": _chain(n), "example": "s"}}}
    )
    assert status == 200, doc
    status, doc = await api.publish(t, order("w", 5, topic="wide"))
    assert status == 400 and doc["code"] == "payload_schema_invalid"


async def test_work_per_payload_is_bounded(engine: Engine, api: Api) -> None:
    """subschemas x values + regexes x bytes past MAX_WORK: refused before validating, and
    nothing is written; the same type takes a payload inside the bound."""
    t = await new_tenant(engine, "acme")
    wide = {"type": "array", "items": {"allOf": [{"minimum": i} for i in range(998)]}}
    body = {"description": "x", "versions": {"1": {"schema": wide, "example": [1000]}}}
    assert (await api.define(t, "heavy", body))[0] == 200
    values = MAX_WORK // 1000 + 10  # just past the bound with ~1,000 subschemas
    status, doc = await api.publish(t, order("h1", [2000] * values, topic="heavy"))
    assert status == 400 and doc["code"] == "payload_too_complex", doc
    status, _, _ = await api.call("GET", "/v1/events/h1", t.token)
    assert status == 404
    status, doc = await api.publish(t, order("h2", [2000] * 100, topic="heavy"))
    assert status == 202, doc
    # inside the work bound but 998 x 50 possible errors: jsonschema-rs would build them all
    # before yielding one (seconds), so only the first is reported
    status, doc = await api.publish(t, order("h3", [-1] * 50, topic="heavy"))
    assert status == 400 and doc["code"] == "payload_schema_invalid", doc
    assert [e["pointer"] for e in doc["errors"]] == ["/0"]
    # an example past the bound is refused when the type is defined
    body = {"description": "x", "versions": {"1": {"schema": wide, "example": [2000] * values}}}
    status, doc = await api.define(t, "heavy2", body)
    assert status == 400 and doc["code"] == "example_invalid", doc


async def test_too_many_regexes_are_refused(engine: Engine, api: Api) -> None:
    t = await new_tenant(engine, "acme")
    many = {"allOf": [{"pattern": f"^a{i}$"} for i in range(MAX_PATTERNS + 1)]}
    doc = await _refused(api, t, many, example="a0")
    assert doc["code"] == "schema_invalid" and str(MAX_PATTERNS) in doc["detail"]


def _scoped_chain(n: int) -> dict[str, Any]:
    """A doubling chain inside a nested resource (``$id``): its ``#/...`` references resolve
    from that resource, while the root's ``$defs`` of the same names are harmless."""
    inner: dict[str, Any] = {"d0": {"type": "string"}}
    for k in range(1, n + 1):
        ref = {"$ref": f"#/$defs/d{k - 1}"}
        inner[f"d{k}"] = {"anyOf": [ref, dict(ref)]}
    return {
        "$defs": {f"d{k}": True for k in range(n + 1)},
        "allOf": [{"$id": "urn:inner", "$defs": inner, "$ref": f"#/$defs/d{n}"}],
    }


@pytest.mark.parametrize("keyword", ["$id", "$anchor", "$dynamicAnchor"])
def test_a_nested_resource_cannot_hide_work_from_the_count(keyword: str) -> None:
    """The count follows '#/...' from the root; a nested ``$id`` (or an anchor) would make the
    validator follow it from elsewhere and unfold what was never counted (2**40 paths)."""
    schema = _scoped_chain(40)
    if keyword != "$id":
        schema["allOf"][0][keyword] = schema["allOf"][0].pop("$id").replace("urn:", "")
    with pytest.raises(SchemaInvalid, match="only at the schema's root"):
        unfolded_size(schema)
    assert unfolded_size({"$id": "urn:root", "type": "object"}) == (1, 0)  # the root may
