"""The relay's written contract agrees with the code: the frames' JSON Schema is the one the
structs give, the destination schema knows the relay, the OpenAPI document has the route."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema_rs
import msgspec

from hookproof.engine.api.openapi import openapi_document
from hookproof.engine.relay import protocol

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


def test_the_frames_schema_file_is_the_structs_schema() -> None:
    written = json.loads((SCHEMAS / "relay-frames.schema.json").read_text())
    made = msgspec.json.schema(protocol.ToClient | protocol.RelayReport)
    assert {k: v for k, v in written.items() if k not in ("$schema", "title")} == made
    validator = jsonschema_rs.validator_for(written)
    report = {"type": "report", "exchangeId": "rx_1", "deliveryId": "dlv_1", "attempt": 2}
    assert validator.is_valid({**report, "status": 204})
    assert not validator.is_valid({"type": "report", "exchangeId": "rx_1"})
    assert not validator.is_valid({**report, "extra": 1})


def test_the_destination_schema_accepts_the_relay_and_nothing_more() -> None:
    path = SCHEMAS / "destination.v1.schema.json"
    validator = jsonschema_rs.validator_for(json.loads(path.read_text()))
    assert validator.is_valid({"type": "relay"})
    assert not validator.is_valid({"type": "relay", "url": "http://localhost:3000/"})


def test_the_openapi_document_describes_the_websocket_and_the_destination() -> None:
    doc = openapi_document()
    op = doc["paths"]["/v1/relay/{id}"]["get"]
    assert "101" in op["responses"] and op["security"] == [{"bearer": []}]
    refs = {r["$ref"] for r in op["x-websocket"]["toClient"] + op["x-websocket"]["toEngine"]}
    for ref in refs:
        assert ref.rsplit("/", 1)[1] in doc["components"]["schemas"]
    dest = doc["components"]["schemas"]["SubscriptionCreate"]["properties"]["destination"]
    assert "relay" in json.dumps(dest)
