"""A subscription's ``format`` (DESIGN.md section 16, issue 51 item 2): deliveries in
CloudEvents structured and binary mode, made from the same event, parse with the official
``cloudevents`` SDK's ``from_http`` to the section 16 attributes and data, and their
signatures verify with the subscriber SDK (hookproof.sig.v1) and the official
``standardwebhooks`` library (standard-webhooks.v1); a CloudEvent published in comes out
with the same attributes. Real engine, real database, real HTTPS (trustme)."""

from __future__ import annotations

import base64
import json
import os
from datetime import UTC, datetime
from typing import Any

import aiohttp
import msgspec
import pytest
from aiohttp.test_utils import TestServer
from cloudevents.core.bindings.http import HTTPMessage, from_http, to_binary_event
from cloudevents.core.formats.json import JSONFormat
from cloudevents.core.v1.event import CloudEvent
from standardwebhooks import Webhook

from hookproof.engine.delivery.formats import render
from hookproof.engine.runtime.daemon import Engine
from hookproof.schemas.api import SubscriptionPatch
from hookproof_subscriber import JwksKeyResolver, verify_request

from .conftest import Subscriber, active_subscription, delivery, dispatch_all, publish

TIME = datetime(2026, 12, 7, 10, tzinfo=UTC)
STAMP = "2026-12-07T10:00:00Z"


async def _resolver(engine: Engine) -> JwksKeyResolver:
    async def fetch(_: str) -> bytes:
        return json.dumps(await engine.services.keyring.jwks()).encode()

    resolver = JwksKeyResolver(
        "https://engine.invalid/.well-known/hookproof/jwks.json", fetch=fetch
    )
    await resolver.refresh()
    return resolver


def _parsed(headers: dict[str, str], body: bytes) -> CloudEvent:
    event = from_http(HTTPMessage(headers=headers, body=body), JSONFormat())
    assert isinstance(event, CloudEvent)
    return event


def _expected(tenant: str, event_id: str) -> dict[str, Any]:
    return {
        "specversion": "1.0",
        "id": event_id,
        "source": f"/tenants/{tenant}",
        "type": "order.created",
        "subject": "agg-1",
        "time": TIME,
        "datacontenttype": "application/json",
        "aggregateversion": "1",
        "eventversion": "1.0",
    }


@pytest.mark.parametrize("fmt", ["cloudevents-structured", "cloudevents-binary"])
async def test_a_cloudevents_delivery_parses_with_the_sdk_and_verifies(
    engine: Engine, tenant: str, subscriber: Subscriber, fmt: str
) -> None:
    path = f"ok-{fmt}"
    sid = await active_subscription(engine, tenant, subscriber.url(path), format=fmt)
    view = await engine.subscriptions.get(tenant, sid)
    assert view.config.format == fmt
    payload = {"amount": 42, "note": 'a "quoted" 100%'}
    result = await publish(
        engine, tenant, f"evt-{fmt}", payload, aggregateId="agg-1", occurredAt=STAMP
    )
    await dispatch_all(engine)
    [planned] = result.deliveries
    assert (await delivery(engine, tenant, planned["deliveryId"]))["state"] == "ENDPOINT_ACCEPTED"
    [got] = subscriber.deliveries(path)
    event = _parsed(got.headers, got.body)
    attributes = dict(event.get_attributes())
    # the JSON format keeps aggregateversion an Integer; a ce- header is a String
    if fmt == "cloudevents-structured":
        assert got.headers["Content-Type"] == "application/cloudevents+json"
        assert not any(k.lower().startswith("ce-") for k in got.headers)
        attributes["aggregateversion"] = str(attributes["aggregateversion"])
    else:
        assert got.headers["Content-Type"] == "application/json"
        assert got.headers["ce-id"] == f"evt-{fmt}"
    assert attributes == _expected(tenant, f"evt-{fmt}")
    assert event.get_data() == {"amount": 42, "note": 'a "quoted" 100%'}
    # the signature covers the bytes sent: they verify, and one altered byte does not
    keys = await _resolver(engine)
    verdict = verify_request("POST", subscriber.url(path), got.headers, got.body, keys=keys)
    assert verdict.ok, verdict.reason
    bad = verify_request(
        "POST", subscriber.url(path), got.headers, got.body.replace(b"42", b"43"), keys=keys
    )
    assert not bad.ok


async def test_standard_webhooks_signs_a_binary_cloudevent(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    raw = os.urandom(32)
    secret = "whsec_" + base64.b64encode(raw).decode()
    subscriber.secrets["ok-sw"] = raw
    await active_subscription(
        engine,
        tenant,
        subscriber.url("ok-sw"),
        format="cloudevents-binary",
        signatureAlgorithm="hmac-sha256",
        signatureProfile="standard-webhooks.v1",
        secret=secret,
    )
    await publish(engine, tenant, "evt-sw-ce", {"amount": 7}, occurredAt=STAMP)
    await dispatch_all(engine)
    [got] = subscriber.deliveries("ok-sw")
    headers = {k.lower(): v for k, v in got.headers.items()}
    Webhook(secret).verify(got.body, headers, json_parse=False)  # raises on failure
    assert _parsed(got.headers, got.body).get_data() == {"amount": 7}


async def test_the_format_is_a_bound_field_and_a_bad_one_is_refused(
    engine: Engine, tenant: str, subscriber: Subscriber
) -> None:
    sid = await active_subscription(engine, tenant, subscriber.url("ok-bound"))
    before = await engine.subscriptions.get(tenant, sid)
    assert before.config.format == "hookproof"
    patch = msgspec.convert({"format": "cloudevents-structured"}, SubscriptionPatch)
    after = await engine.subscriptions.update(tenant, sid, before.generation, patch, actor="test")
    assert after.generation == before.generation + 1  # a new generation: challenged again
    assert after.config.format == "cloudevents-structured"
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert({"format": "cloudevents-xml"}, SubscriptionPatch)
    with pytest.raises(ValueError):
        render("cloudevents-xml", b"{}", tenant)


def test_the_publishers_source_and_extensions_come_out_the_mapped_attributes_win() -> None:
    body = json.dumps(
        {
            "type": "order.created",
            "eventId": "e1",
            "version": "1.2",
            "aggregateId": "order 7 ü",
            "aggregateVersion": 3,
            "occurredAt": "2026-12-07T10:00:00Z",
            "payload": [1, 2],
            "source": "/shop/eu",
            "extensions": {"region": "eu", "flag": True},
        }
    ).encode()
    binary, headers = render("cloudevents-binary", body, "t1")
    assert binary == b"[1,2]"
    assert headers["ce-subject"] == "order%207%20%C3%BC"
    assert headers["ce-flag"] == "true" and headers["ce-region"] == "eu"
    event = _parsed(headers, binary)
    assert event.get_subject() == "order 7 ü" and event.get_source() == "/shop/eu"
    structured, headers = render("cloudevents-structured", body, "t1")
    event = _parsed(headers, structured)
    assert event.get_extension("aggregateversion") == 3
    assert event.get_extension("flag") is True and event.get_data() == [1, 2]
    same, headers = render("hookproof", body, "t1")
    assert same == body and headers == {"Content-Type": "application/json"}


async def test_a_cloudevent_in_comes_out_the_same_after_a_sql_filter(
    engine: Engine, subscriber: Subscriber
) -> None:
    issued = await engine.tenants.create("acme")
    await active_subscription(
        engine,
        issued.tenant_id,
        subscriber.url("ok-trip"),
        format="cloudevents-structured",
        filters=[{"sql": "aggregateversion > 2"}],
    )
    sent = [
        CloudEvent(
            {
                "id": f"trip-{version}",
                "type": "order.created",
                "source": "/shop/eu",
                "subject": "order-9",
                "time": TIME,
                "aggregateversion": version,
                "eventversion": "1.2",
                "region": "eu",
                "datacontenttype": "application/json",
            },
            {"amount": version},
        )
        for version in (3, 1)
    ]
    server = TestServer(engine.app(), host="127.0.0.1")
    await server.start_server()
    try:
        async with aiohttp.ClientSession() as http:
            for event in sent:
                message = to_binary_event(event)
                headers = {"Authorization": f"Bearer {issued.token}", **message.headers}
                url = str(server.make_url("/v1/events"))
                async with http.post(url, data=message.body, headers=headers) as r:
                    assert r.status == 202, await r.text()
    finally:
        await server.close()
    await dispatch_all(engine)
    [got] = subscriber.deliveries("ok-trip")  # the filter let version 3 through, not 1
    out = _parsed(got.headers, got.body)
    wanted = dict(sent[0].get_attributes())
    wanted["aggregateversion"] = 3  # sent in a ce- header (a String), out in JSON (Integer)
    assert dict(out.get_attributes()) == wanted
    assert out.get_data() == {"amount": 3}
