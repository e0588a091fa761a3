"""``POST /v1/filters/evaluate`` through the real API (issue 50): every case of the vendored
CESQL TCK answers its value and error kind over HTTP, a hookproof event and a CloudEvent are
both read with the attribute mapping of DESIGN.md 16, and a bad expression is reported beside
the others with its code and position."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from hookproof.engine.runtime.daemon import Engine
from tests.filters.test_cesql_tck import CASES, KNOWN_DISAGREEMENTS, _event


@pytest.fixture
async def http(engine: Engine) -> AsyncIterator[tuple[aiohttp.ClientSession, str, str]]:
    issued = await engine.tenants.create("acme")
    server = TestServer(engine.app(), host="127.0.0.1")
    await server.start_server()
    try:
        async with aiohttp.ClientSession(
            base_url=str(server.make_url("")),
            headers={"Authorization": f"Bearer {issued.token}"},
        ) as session:
            yield session, issued.tenant_id, str(server.make_url(""))
    finally:
        await server.close()


async def _evaluate(session: aiohttp.ClientSession, body: Any) -> tuple[int, Any]:
    async with session.post("/v1/filters/evaluate", json=body) as r:
        return r.status, await r.json(content_type=None)


async def test_every_tck_case_through_the_route(
    http: tuple[aiohttp.ClientSession, str, str],
) -> None:
    session, _, _ = http
    checked = 0
    for param in CASES:
        file, case = param.values
        expected_value, expected_error = case.get("result"), case.get("error")
        known = KNOWN_DISAGREEMENTS.get((file, case["name"]))
        if known is not None:
            expected_value, expected_error, _ = known
        status, answer = await _evaluate(
            session, {"filters": [{"sql": case["expression"]}], "event": _event(case)}
        )
        assert status == 200, (file, case["name"], answer)
        [result] = answer["results"]
        assert result.get("error", {}).get("kind") == expected_error, (file, case["name"])
        if expected_error == "parse":
            assert "value" not in result and answer["matches"] is False
            assert result["error"]["code"] == "filter_parse_error"
            assert result["error"]["path"] == "/0/sql"
            assert isinstance(result["error"]["position"], int)
        elif "result" in case or known is not None:
            assert result["value"] == expected_value, (file, case["name"])
            assert type(result["value"]) is type(expected_value), (file, case["name"])
            holds = expected_value is True or str(expected_value).lower() == "true"
            assert answer["matches"] is (holds and expected_error is None), (file, case["name"])
        checked += 1
    assert checked == len(CASES) == 251


async def test_a_hookproof_event_is_read_with_the_attribute_mapping(
    http: tuple[aiohttp.ClientSession, str, str],
) -> None:
    session, tenant, _ = http
    event = {
        "eventId": "evt-1",
        "topic": "invoice.paid",
        "version": "2.1",
        "aggregateId": "inv-42",
        "aggregateVersion": 7,
        "occurredAt": "2026-12-02T06:00:00Z",
        "payload": {"amount": 1200, "tags": ["vip"]},
    }
    filters = [
        {"exact": {"type": "invoice.paid", "id": "evt-1", "subject": "inv-42"}},
        {"exact": {"source": f"/tenants/{tenant}", "eventversion": "2.1"}},
        {"sql": "aggregateversion + 1"},
        {
            "match": {
                "data": {"amount": {"$gt": 1000}, "tags": "vip"},
                "metadata": {"version": "2.1"},
            }
        },
        {"not": {"prefix": {"datacontenttype": "text/"}}},
        {"sql": "nosuch = 'x'"},
    ]
    status, answer = await _evaluate(session, {"filters": filters, "event": event})
    assert status == 200, answer
    values = [r.get("value") for r in answer["results"]]
    assert values == [True, True, 8, True, True, False]
    assert answer["results"][5]["error"]["kind"] == "missingAttribute"
    assert answer["matches"] is False  # the last one did not hold
    assert len(answer["digest"]) == 64

    status, answer = await _evaluate(session, {"filters": filters[:5], "event": event})
    assert answer["matches"] is False  # sql 8 is not TRUE: it does not hold
    status, answer = await _evaluate(session, {"filters": filters[:2], "event": event})
    assert answer["matches"] is True


async def test_a_cloudevent_and_bad_input(http: tuple[aiohttp.ClientSession, str, str]) -> None:
    session, _, base = http
    cloudevent = {
        "specversion": "1.0",
        "id": "c-1",
        "source": "/shop",
        "type": "order.created",
        "region": "eu",
        "data": {"total": 5},
    }
    filters = [
        {"exact": {"region": "eu"}},
        {"match": {"topic": "order.created", "metadata": {"source": "/shop"}}},
        {"sql": "1 +"},
        {"match": {"data": {"$near": 1}}},
    ]
    status, answer = await _evaluate(session, {"filters": filters, "event": cloudevent})
    assert status == 200, answer
    ok, matched, parse, unknown = answer["results"]
    assert ok == {"value": True} and matched == {"value": True}
    assert parse["error"]["kind"] == "parse" and parse["error"]["position"] == 3
    assert parse["error"]["path"] == "/2/sql" and parse["error"]["dialect"] == "sql"
    assert unknown["error"]["code"] == "filter_invalid_match"
    assert unknown["error"]["path"] == "/3/match/data/$near"
    assert answer["matches"] is False
    # an expression of the wrong shape refuses the request, as the schema does
    for bad, code, path in (
        ({"unknown": {}}, "filter_unknown_dialect", "/1"),
        ({"match": []}, "filter_invalid_match", "/1/match"),
        ({"exact": {"id": ""}}, "filter_invalid", "/1/exact/id"),
    ):
        status, problem = await _evaluate(
            session, {"filters": [filters[0], bad], "event": cloudevent}
        )
        assert status == 400 and problem["code"] == code and problem["path"] == path, problem

    status, problem = await _evaluate(session, {"filters": [], "event": {"nope": 1}})
    assert status == 400 and problem["code"] == "invalid_event", problem
    plain = {
        "eventId": "e",
        "topic": "t",
        "version": "1.0",
        "aggregateId": "a",
        "aggregateVersion": 1,
        "payload": None,
    }
    for wrong in ({"consumerId": ""}, {"occurredAt": ""}, {"version": "1"}):
        status, problem = await _evaluate(session, {"filters": [], "event": {**plain, **wrong}})
        assert status == 400 and problem["field"] == next(iter(wrong)), problem
    status, problem = await _evaluate(
        session, {"filters": [], "event": {"specversion": "1.0", "id": "x"}}
    )
    assert status == 400 and problem["code"] == "invalid_event", problem
    status, problem = await _evaluate(session, {"filters": [{}] * 65, "event": cloudevent})
    assert status == 400 and problem["code"] == "filter_invalid", problem
    async with aiohttp.ClientSession(base_url=base) as anonymous:
        async with anonymous.post("/v1/filters/evaluate", json={}) as r:
            assert r.status == 401
