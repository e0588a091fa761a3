"""``POST /v1/events`` takes CloudEvents (DESIGN.md section 16, issue 51 item 1): events built
by the official ``cloudevents`` SDK (structured, binary, a batch) are accepted, planned and
delivered to a real HTTPS subscriber with the section 16 mapping; a repeat answers as a
repeated publish does; a CloudEvent that breaks the spec is a 400 naming the attribute, and
leaves nothing behind. Real API server, real database, real HTTPS (trustme)."""

from __future__ import annotations

import json
import random
import shlex
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestServer
from cloudevents.core.bindings.http import HTTPMessage, to_binary_event, to_structured_event
from cloudevents.core.formats.json import JSONFormat
from cloudevents.core.v1.event import CloudEvent

from hookproof.engine.runtime.daemon import Engine

from .conftest import Subscriber, active_subscription, delivery, dispatch_all

STRUCTURED = "application/cloudevents+json"
BATCH = "application/cloudevents-batch+json"
TIME = "2026-12-07T10:00:00Z"


@pytest.fixture
async def api(engine: Engine) -> AsyncIterator[tuple[str, str, str]]:
    issued = await engine.tenants.create("acme")
    server = TestServer(engine.app(), host="127.0.0.1")
    await server.start_server()
    try:
        yield str(server.make_url("")).rstrip("/"), issued.tenant_id, issued.token
    finally:
        await server.close()


async def _send(
    base: str, token: str, body: bytes, headers: dict[str, str], path: str = "/v1/events"
) -> tuple[int, Any]:
    h = {"Authorization": f"Bearer {token}", **headers}
    # no Content-Type given: none sent (aiohttp would add application/octet-stream)
    skip = [] if any(k.lower() == "content-type" for k in h) else ["Content-Type"]
    async with aiohttp.ClientSession(skip_auto_headers=skip) as http:
        async with http.post(base + path, data=body, headers=h) as r:
            return r.status, await r.json(content_type=None)


async def _message(base: str, token: str, message: HTTPMessage) -> tuple[int, Any]:
    return await _send(base, token, message.body, dict(message.headers))


def _event(data: Any = None, **attributes: Any) -> CloudEvent:
    attrs: dict[str, Any] = {
        "type": "order.created",
        "source": "/shop/eu",
        "time": datetime(2026, 12, 7, 10, tzinfo=UTC),
    }
    attrs.update(attributes)
    return CloudEvent(attrs, data if data is not None else {"amount": 42})


def _body_of(subscriber: Subscriber, event_id: str) -> dict[str, Any]:
    [got] = [
        json.loads(r.body)
        for r in subscriber.deliveries()
        if json.loads(r.body).get("eventId") == event_id
    ]
    return got


async def test_sdk_events_in_every_mode_are_mapped_planned_and_delivered(
    engine: Engine, api: tuple[str, str, str], subscriber: Subscriber
) -> None:
    base, tenant, token = api
    await active_subscription(engine, tenant, subscriber.url("ok-ce"))
    structured = _event(
        {"amount": 1},
        id="ce-structured-1",
        subject="order-7",
        aggregateversion=3,
        eventversion="1.2",
        region="eu",
    )
    # a subject the binding percent-encodes in its header (a space, a non-ASCII letter)
    binary = _event({"amount": 2}, id="ce-binary-1", subject="order ü 7", aggregateversion=4)
    batch = [_event({"amount": 10 + i}, id=f"ce-batch-{i}") for i in range(2)]

    answers = [
        await _message(base, token, to_structured_event(structured)),
        await _message(base, token, to_binary_event(binary)),
    ]
    for status, answer in answers:
        assert status == 202, answer
        assert answer["created"] is True and len(answer["deliveries"]) == 1
    body = b"[" + b",".join(JSONFormat().write(e) for e in batch) + b"]"
    status, results = await _send(base, token, body, {"Content-Type": BATCH})
    assert status == 200, results
    assert [r["status"] for r in results["results"]] == [202, 202]
    assert [r["eventId"] for r in results["results"]] == ["ce-batch-0", "ce-batch-1"]

    await dispatch_all(engine)
    for _, answer in answers:
        [planned] = answer["deliveries"]
        view = await delivery(engine, tenant, planned["deliveryId"])
        assert view["state"] == "ENDPOINT_ACCEPTED", view
    assert _body_of(subscriber, "ce-structured-1") == {
        "type": "order.created",
        "eventId": "ce-structured-1",
        "version": "1.2",
        "aggregateId": "order-7",
        "aggregateVersion": 3,
        "occurredAt": TIME,
        "payload": {"amount": 1},
        "source": "/shop/eu",
        "extensions": {"region": "eu"},
    }
    got = _body_of(subscriber, "ce-binary-1")  # the headers, read back
    assert (got["aggregateId"], got["aggregateVersion"], got["payload"]) == (
        "order ü 7",
        4,
        {"amount": 2},
    )
    # no subject, no aggregateversion, no eventversion: the documented defaults
    got = _body_of(subscriber, "ce-batch-1")
    assert (got["aggregateId"], got["aggregateVersion"], got["version"]) == ("ce-batch-1", 0, "1.0")
    assert got["source"] == "/shop/eu" and "extensions" not in got


async def test_a_republished_cloudevent_answers_as_a_repeated_publish(
    engine: Engine, api: tuple[str, str, str], subscriber: Subscriber
) -> None:
    base, tenant, token = api
    await active_subscription(engine, tenant, subscriber.url("ok-again"))
    event = _event(id="ce-again", subject="order-1", aggregateversion=1)
    status, first = await _message(base, token, to_structured_event(event))
    assert status == 202 and first["created"] is True
    # the same CloudEvent again, in either mode: the same answer, created false
    for message in (to_structured_event(event), to_binary_event(event)):
        status, again = await _message(base, token, message)
        assert status == 202, again
        assert again["created"] is False
        assert again["payloadDigest"] == first["payloadDigest"]
        assert again["deliveries"] == first["deliveries"]
    # the same id with other data: the conflict of today's publish
    status, conflict = await _message(
        base, token, to_structured_event(_event({"amount": 1}, id="ce-again"))
    )
    assert status == 409 and conflict["code"] == "event_payload_conflict", conflict
    await dispatch_all(engine)
    assert len(subscriber.deliveries("ok-again")) == 1


async def test_a_typed_topic_judges_cloudevent_data_as_it_judges_a_payload(
    engine: Engine, api: tuple[str, str, str], subscriber: Subscriber
) -> None:
    base, _, token = api
    schema = {
        "type": "object",
        "required": ["amount"],
        "properties": {"amount": {"type": "integer"}},
    }
    h = {"Authorization": f"Bearer {token}"}
    async with aiohttp.ClientSession(headers=h) as http:
        body = {"description": "d", "versions": {"1": {"schema": schema, "example": {"amount": 1}}}}
        async with http.put(base + "/v1/event-types/order.created", json=body) as r:
            assert r.status in (200, 201), await r.text()
    status, bad = await _message(
        base, token, to_structured_event(_event({"amount": "many"}, id="ce-typed-bad"))
    )
    plain = {
        "eventId": "plain-typed-bad",
        "topic": "order.created",
        "version": "1.0",
        "aggregateId": "a",
        "aggregateVersion": 1,
        "occurredAt": TIME,
        "payload": {"amount": "many"},
    }
    status_plain, bad_plain = await _send(
        base, token, json.dumps(plain).encode(), {"Content-Type": "application/json"}
    )
    assert status == status_plain == 400 and bad["code"] == bad_plain["code"], (bad, bad_plain)
    status, good = await _message(
        base, token, to_binary_event(_event({"amount": 5}, id="ce-typed-good"))
    )
    assert status == 202, good


def _doc(**over: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "specversion": "1.0",
        "id": "ce-bad",
        "source": "/shop",
        "type": "order.created",
        "time": TIME,
        "data": {"amount": 1},
    }
    for k, v in over.items():
        if v is _DROP:
            doc.pop(k)
        else:
            doc[k] = v
    return doc


_DROP = object()

#: (case, attribute named, code, structured document)
STRUCTURED_REFUSALS: list[tuple[str, str | None, str, Any]] = [
    ("no specversion", "specversion", "cloudevent_invalid", _doc(specversion=_DROP)),
    ("specversion 0.3", "specversion", "cloudevent_invalid", _doc(specversion="0.3")),
    ("specversion a number", "specversion", "cloudevent_invalid", _doc(specversion=1.0)),
    ("no id", "id", "cloudevent_invalid", _doc(id=_DROP)),
    ("empty id", "id", "cloudevent_invalid", _doc(id="")),
    ("id a number", "id", "cloudevent_invalid", _doc(id=7)),
    ("no source", "source", "cloudevent_invalid", _doc(source=_DROP)),
    ("empty source", "source", "cloudevent_invalid", _doc(source="")),
    ("null source", "source", "cloudevent_invalid", _doc(source=None)),
    ("no type", "type", "cloudevent_invalid", _doc(type=_DROP)),
    ("empty type", "type", "cloudevent_invalid", _doc(type="")),
    ("empty subject", "subject", "cloudevent_invalid", _doc(subject="")),
    ("upper-case name", "Region", "cloudevent_invalid", _doc(Region="eu")),
    ("name with a dash", "my-ext", "cloudevent_invalid", _doc(**{"my-ext": "x"})),
    ("name with an underscore", "my_ext", "cloudevent_invalid", _doc(my_ext="x")),
    ("time not RFC 3339", "time", "cloudevent_invalid", _doc(time="07/12/2026 10:00")),
    ("time without offset", "time", "cloudevent_invalid", _doc(time="2026-12-07T10:00:00")),
    ("time a date only", "time", "cloudevent_invalid", _doc(time="2026-12-07")),
    ("data and data_base64", "data_base64", "cloudevent_invalid", _doc(data_base64="AAEC")),
    ("dataschema relative", "dataschema", "cloudevent_invalid", _doc(dataschema="schemas/x")),
    ("extension an object", "region", "cloudevent_invalid", _doc(region={"a": 1})),
    ("extension a float", "weight", "cloudevent_invalid", _doc(weight=1.5)),
    ("extension past 32 bits", "big", "cloudevent_invalid", _doc(big=2**31)),
    ("a control character", "subject", "cloudevent_invalid", _doc(subject="a\x00b")),
    ("aggregateversion -1", "aggregateversion", "cloudevent_invalid", _doc(aggregateversion=-1)),
    ("aggregateversion text", "aggregateversion", "cloudevent_invalid", _doc(aggregateversion="x")),
    ("not an object", None, "cloudevent_invalid", ["not", "an", "event"]),
    # valid CloudEvents hookproof cannot carry
    ("text data", "datacontenttype", "cloudevent_unsupported", _doc(datacontenttype="text/plain")),
    ("binary data", "data_base64", "cloudevent_unsupported", _doc(data=_DROP, data_base64="AAEC")),
    ("no time", "time", "cloudevent_unsupported", _doc(time=_DROP)),
    # hookproof's own bounds, the attribute named beside the field
    ("id with a slash", "id", "invalid_request", _doc(id="a/b")),
    ("eventversion not MAJOR.MINOR", "eventversion", "invalid_request", _doc(eventversion="v2")),
    ("source with a space", "source", "invalid_request", _doc(source="/my shop")),
]


async def test_structured_refusals_name_the_attribute(api: tuple[str, str, str]) -> None:
    base, _, token = api
    h = {"Authorization": f"Bearer {token}"}
    for case, attribute, code, doc in STRUCTURED_REFUSALS:
        status, problem = await _send(
            base, token, json.dumps(doc).encode(), {"Content-Type": STRUCTURED}
        )
        assert status == 400, (case, problem)
        assert problem["code"] == code and problem.get("attribute") == attribute, (case, problem)
        assert problem["status"] == 400 and problem["type"].endswith(code)
        # the same CloudEvent in a batch: its own 400 result with the same problem
        body = json.dumps([doc, _doc(id="ce-fine")]).encode()
        status, batch = await _send(base, token, body, {"Content-Type": BATCH})
        assert status == 200, (case, batch)
        refused, fine = batch["results"]
        assert refused["status"] == 400 and refused["problem"]["code"] == code, (case, refused)
        assert refused["problem"].get("attribute") == attribute, (case, refused)
        assert fine["status"] == 202 and fine["eventId"] == "ce-fine", (case, fine)
        # nothing of the refused one was stored
        async with aiohttp.ClientSession(headers=h) as http:
            async with http.get(f"{base}/v1/events/ce-bad") as r:
                assert r.status == 404, case


def _headers(**over: str | None) -> dict[str, str]:
    h: dict[str, str | None] = {
        "ce-specversion": "1.0",
        "ce-id": "ce-bad",
        "ce-source": "/shop",
        "ce-type": "order.created",
        "ce-time": TIME,
        "Content-Type": "application/json",
    }
    h.update(over)
    return {k: v for k, v in h.items() if v is not None}


#: (case, attribute named, code, headers, body)
BINARY_REFUSALS: list[tuple[str, str | None, str, dict[str, str], bytes]] = [
    ("no ce-specversion", "specversion", "cloudevent_invalid", _headers(**{"ce-specversion": None}), b"{}"),
    ("ce-specversion 2.0", "specversion", "cloudevent_invalid", _headers(**{"ce-specversion": "2.0"}), b"{}"),
    ("no ce-source", "source", "cloudevent_invalid", _headers(**{"ce-source": None}), b"{}"),
    ("no ce-type", "type", "cloudevent_invalid", _headers(**{"ce-type": None}), b"{}"),
    ("empty ce-id", "id", "cloudevent_invalid", _headers(**{"ce-id": ""}), b"{}"),
    ("bad ce-time", "time", "cloudevent_invalid", _headers(**{"ce-time": "yesterday"}), b"{}"),
    ("ce- name with a dot", "my.ext", "cloudevent_invalid", _headers(**{"ce-my.ext": "x"}), b"{}"),
    ("a ce-data header", "data", "cloudevent_invalid", _headers(**{"ce-data": "{}"}), b"{}"),
    ("ce-datacontenttype", "datacontenttype", "cloudevent_invalid", _headers(**{"ce-datacontenttype": "application/json"}), b"{}"),
    ("text body", "datacontenttype", "cloudevent_unsupported", _headers(**{"Content-Type": "text/plain"}), b"hello"),
    ("data not JSON", None, "invalid_json", _headers(), b"{not json"),
]  # fmt: skip


async def test_binary_refusals_name_the_attribute(api: tuple[str, str, str]) -> None:
    base, _, token = api
    for case, attribute, code, headers, body in BINARY_REFUSALS:
        status, problem = await _send(base, token, body, headers)
        assert status == 400, (case, problem)
        assert problem["code"] == code and problem.get("attribute") == attribute, (case, problem)


async def test_other_event_formats_and_bad_batches_are_refused_whole(
    api: tuple[str, str, str],
) -> None:
    base, _, token = api
    status, problem = await _send(
        base, token, b"x", {"Content-Type": "application/cloudevents+avro"}
    )
    assert status == 415 and problem["code"] == "unsupported_media_type", problem
    status, problem = await _send(base, token, b'{"id": "x"}', {"Content-Type": BATCH})
    assert status == 400 and problem["code"] == "cloudevent_invalid", problem
    status, empty = await _send(base, token, b"[]", {"Content-Type": BATCH})
    assert status == 200 and empty == {"results": []}
    too_many = json.dumps([_doc(id=f"e{i}") for i in range(1001)]).encode()
    status, problem = await _send(base, token, too_many, {"Content-Type": BATCH})
    assert status == 400 and problem["code"] == "batch_too_large", problem


def _readme_curls() -> list[tuple[dict[str, str], bytes]]:
    """The curl commands of the README's "Publishing CloudEvents": headers and body."""
    text = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = text.split("### Publishing CloudEvents", 1)[1].split("\n### ", 1)[0]
    commands, current = [], ""
    for line in section.splitlines():
        code = line.strip()
        if code.startswith("curl "):
            current = code
        elif current and line.startswith("    ") and not code.startswith("#"):
            current += " " + code
        elif current:
            commands.append(current)
            current = ""
    out = []
    for command in commands:
        words = shlex.split(command.replace("\\ ", " "))
        headers = dict(
            w.split(": ", 1) for k, w in zip(words, words[1:], strict=False) if k == "-H"
        )
        headers.pop("Authorization", None)
        [body] = [w for k, w in zip(words, words[1:], strict=False) if k == "-d"]
        out.append((headers, body.encode()))
    return out


async def test_the_readme_curls_publish_in_each_mode(api: tuple[str, str, str]) -> None:
    base, _, token = api
    curls = _readme_curls()
    assert [h.get("Content-Type") for h, _ in curls] == [STRUCTURED, "application/json", BATCH]
    statuses = []
    for headers, body in curls:
        status, answer = await _send(base, token, body, headers)
        statuses.append(status)
        assert status in (200, 202), answer
        results = answer["results"] if status == 200 else [answer]
        assert all(r.get("created", False) for r in results), answer
    assert statuses == [202, 202, 200]


async def test_aggregateversion_orders_cloudevents_and_its_absence_is_never_held(
    engine: Engine, api: tuple[str, str, str], subscriber: Subscriber
) -> None:
    base, tenant, token = api
    await active_subscription(engine, tenant, subscriber.url("ok-ordered"), ordering="aggregate")
    # published 3, 1, 2 in mixed modes: delivered 1, 2, 3 (as for plain events)
    for version, to_message in (
        (3, to_binary_event),
        (1, to_structured_event),
        (2, to_binary_event),
    ):
        event = _event(id=f"ord-{version}", subject="order-9", aggregateversion=version)
        status, answer = await _message(base, token, to_message(event))
        assert status == 202, answer
    # no aggregateversion: version 0 of its own aggregate, sent at once
    status, _ = await _message(base, token, to_structured_event(_event(id="unversioned")))
    assert status == 202
    for _ in range(8):
        await dispatch_all(engine)
    got = [json.loads(r.body) for r in subscriber.deliveries("ok-ordered")]
    ordered = [d["aggregateVersion"] for d in got if d["aggregateId"] == "order-9"]
    assert ordered == [1, 2, 3]
    assert any(d["eventId"] == "unversioned" and d["aggregateVersion"] == 0 for d in got)


async def test_a_plain_event_may_carry_source_and_extensions(api: tuple[str, str, str]) -> None:
    base, _, token = api
    plain: dict[str, Any] = {
        "eventId": "plain-1",
        "topic": "order.created",
        "version": "1.0",
        "aggregateId": "a",
        "aggregateVersion": 1,
        "occurredAt": TIME,
        "payload": {"amount": 1},
    }
    json_type = {"Content-Type": "application/json"}
    status, bare = await _send(base, token, json.dumps(plain).encode(), json_type)
    assert status == 202, bare
    kept = {**plain, "eventId": "plain-2", "source": "/shop", "extensions": {"region": "eu"}}
    status, with_source = await _send(base, token, json.dumps(kept).encode(), json_type)
    assert status == 202, with_source
    # the same event as a CloudEvent: the same canonical body, so a repeat
    doc = _doc(id="plain-2", subject="a", aggregateversion=1, region="eu", source="/shop")
    status, again = await _send(base, token, json.dumps(doc).encode(), {"Content-Type": STRUCTURED})
    assert status == 202 and again["created"] is False, again
    assert again["payloadDigest"] == with_source["payloadDigest"] != bare["payloadDigest"]
    for field, bad in (
        ("source", {"source": "not a uri"}),
        ("extensions.Region", {"extensions": {"Region": "eu"}}),
        ("extensions.id", {"extensions": {"id": "x"}}),
        ("extensions.big", {"extensions": {"big": 2**40}}),
    ):
        body = json.dumps({**plain, "eventId": "plain-bad", **bad}).encode()
        status, problem = await _send(base, token, body, json_type)
        assert status == 400 and problem.get("field") == field, (field, problem)


async def test_hostile_cloudevents_get_a_typed_4xx_never_a_5xx(api: tuple[str, str, str]) -> None:
    """300 requests mixing valid and broken attributes, percent-encodings, media types and
    bodies in every mode: each is a 202 (or 409 repeat) or a problem+json 4xx with a code."""
    base, _, token = api
    rng = random.Random(51)
    names = ["specversion", "id", "source", "type", "subject", "time", "aggregateversion"]
    names += ["eventversion", "consumerid", "dataschema", "data", "Region", "x" * 70, "", "tag"]
    values = ["1.0", "0.3", "", "e-1", "/shop", "order.created", TIME, "7", "-1", "%ZZ", "%C3"]
    values += ["%00", "a%20b", "1.2", "http://x/s", "null", "2026-13-40T99:00:00Z", "ü"]
    bodies = [b"", b"{}", b"[]", b"null", b'{"a": 1}', b"{not json", b"\xff\xfe", b'"x"']
    media = [None, "application/json", "text/plain", STRUCTURED, BATCH, "application/x+json"]
    seen: set[int] = set()
    for i in range(300):
        attrs = {
            "specversion": "1.0",
            "id": f"fuzz-{rng.randint(0, 40)}",
            "source": "/shop",
            "type": "order.created",
            "time": TIME,
        }
        for name in rng.sample(names, rng.randint(0, 3)):  # a few attributes broken or added
            if rng.random() < 0.3:
                attrs.pop(name, None)
            else:
                attrs[name] = rng.choice(values)
        mode = rng.choice(["binary", "structured", "batch"])
        headers: dict[str, str] = {}
        if mode == "binary":
            headers = {f"ce-{k}" if k else "ce-": v for k, v in attrs.items()}
            body = rng.choice(bodies)
            if (ct := rng.choice(media)) is not None:
                headers["Content-Type"] = ct
        else:
            doc: Any = {**attrs, "data": rng.choice([None, 1, {"a": [1]}, "text"])}
            if rng.random() < 0.2:
                doc["data_base64"] = "AAEC"
            if rng.random() < 0.1:
                doc = rng.choice([[doc], "x", 3, None])
            body = json.dumps([doc, doc] if mode == "batch" else doc).encode()
            headers["Content-Type"] = STRUCTURED if mode == "structured" else BATCH
        status, answer = await _send(base, token, body, headers)
        seen.add(status)
        assert status in (200, 202, 400, 409, 415), (i, headers, body, answer)
        if status in (400, 409, 415):
            assert answer["status"] == status and answer["code"], (i, answer)
    assert 400 in seen and 202 in seen, seen
