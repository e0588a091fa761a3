"""Issue 24, point 4: no time value yields a 5xx.

``0001-01-01T00:00:00+23:59`` and ``9999-12-31T23:59:59-23:59`` are valid RFC 3339 text whose
UTC instant falls outside years 1..9999 (``astimezone`` overflows). Every route that parses a
client time (body fields and query parameters, cursors included) answers 400 naming the field.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest

from .conftest import Api, sub_body

EXTREMES = ("0001-01-01T00:00:00+23:59", "9999-12-31T23:59:59-23:59")
ENGINE = Path(__file__).resolve().parents[2] / "engine"
#: every module that parses a time with fromisoformat; the client-facing ones are swept below
PARSERS = {
    "api/pages.py": "cursor times (list cursors)",
    "api/delivery_log.py": "since / until of the delivery log (GET /v1/deliveries)",
    "audit/timeline.py": "asOf / since query parameters (parse_as_of)",
    "subscriptions/validation.py": "occurredAt, expiresAt, since, until (parse_time)",
    # the engine's own stored values, never client text:
    "challenge/protocol.py": "own challenge expiry",
    "rollouts/gates.py": "own rollout switch times",
    "rollouts/service.py": "own rollout creation time",
    "rollouts/repository.py": "own rollout times",
    "rollouts/machine.py": "own rollout times",
    "archive/segment.py": "own segment lines",
    "subscriptions/decide.py": "stored expiresAt (validated by parse_time)",
    "portal/service.py": "own clock reading (a portal session's expiry check)",
    "delivery/transforming.py": "the stored body's occurredAt (validated by parse_time)",
}


def event(event_id: str, occurred_at: str) -> dict[str, object]:
    return {
        "eventId": event_id,
        "topic": "order.created",
        "version": "1.0",
        "aggregateId": "a",
        "aggregateVersion": 1,
        "occurredAt": occurred_at,
        "payload": {},
    }


def cursor(*key: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(list(key)).encode()).decode().rstrip("=")


def test_every_time_parser_is_known() -> None:
    """A new ``fromisoformat`` somewhere must be added here (and swept if clients reach it)."""
    found = {
        str(p.relative_to(ENGINE))
        for p in ENGINE.rglob("*.py")
        if re.search(r"fromisoformat\(", p.read_text())
    }
    assert found == set(PARSERS), found ^ set(PARSERS)


def problem_names(status: int, doc: object, field: str, code: str = "invalid_data") -> None:
    assert status == 400, (field, status, doc)
    assert isinstance(doc, dict) and doc["code"] == code and doc["field"] == field, doc


@pytest.mark.parametrize("value", EXTREMES)
async def test_body_times(api: Api, token: str, value: str) -> None:
    status, _, doc = await api.call("POST", "/v1/events", token=token, json=event("e-1", value))
    problem_names(status, doc, "occurredAt")
    batch = {"events": [event("b-1", value), event("b-2", "2026-11-30T10:00:00Z")]}
    status, _, doc = await api.call("POST", "/v1/events/batch", token=token, json=batch)
    assert status == 200, doc  # the batch stands; only its bad event is refused
    first, second = doc["results"]
    assert first["status"] == 400 and first["eventId"] == "b-1"
    assert first["problem"]["code"] == "invalid_data"
    assert first["problem"]["field"] == "occurredAt"
    assert second["status"] == 202
    status, _, doc = await api.call(
        "POST", "/v1/subscriptions", token=token, json=sub_body(expiresAt=value)
    )
    problem_names(status, doc, "expiresAt")
    status, headers, sub = await api.call("POST", "/v1/subscriptions", token=token, json=sub_body())
    assert status == 201, sub
    status, _, doc = await api.call(
        "PATCH",
        f"/v1/subscriptions/{sub['id']}",
        token=token,
        json={"expiresAt": value},
        headers={"If-Match": headers["ETag"]},
    )
    problem_names(status, doc, "expiresAt")
    recover = f"/v1/subscriptions/{sub['id']}/recover"
    status, _, doc = await api.call("POST", recover, token=token, json={"since": value})
    problem_names(status, doc, "since")
    status, _, doc = await api.call(
        "POST", recover, token=token, json={"since": "2026-01-01T00:00:00Z", "until": value}
    )
    problem_names(status, doc, "until")


@pytest.mark.parametrize("value", EXTREMES)
async def test_query_times_and_cursors(
    api: Api, token: str, value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, _, sub = await api.call("POST", "/v1/subscriptions", token=token, json=sub_body())
    for path in (
        f"/v1/subscriptions/{sub['id']}/timeline",
        "/v1/deliveries/dlv_" + "0" * 28 + "/timeline",
    ):
        status, doc = await call_query(api, path, token, {"asOf": value})
        problem_names(status, doc, "asOf")
    monkeypatch.setenv("HOOKPROOF_ADMIN_TOKEN", "operator-token")
    status, doc = await call_query(api, "/v1/gates", "operator-token", {"since": value})
    problem_names(status, doc, "since")
    for path, key in (
        ("/v1/subscriptions", cursor(value, "sub_" + "0" * 24)),
        ("/v1/dead-letters", cursor(value, "del_x")),
    ):
        status, doc = await call_query(api, path, token, {"cursor": key})
        problem_names(status, doc, "cursor", "invalid_cursor")


async def call_query(api: Api, path: str, token: str, query: dict[str, str]) -> tuple[int, object]:
    async with api.session.get(
        api.base + path, params=query, headers={"Authorization": f"Bearer {token}"}
    ) as resp:
        return resp.status, await resp.json(content_type=None)
