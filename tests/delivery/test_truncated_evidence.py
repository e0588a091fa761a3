"""Truncation is evidence (issue 32, point 6).

A subscriber answers with neither ``Content-Length`` nor chunking (the body ends with the
connection) and then cuts the connection with a bare TCP FIN, no TLS ``close_notify``: anyone
on the path can forge that end. The status seen stays what it was (a 2xx is still
ENDPOINT_ACCEPTED: the status line came whole over the authenticated connection); the attempt's
evidence marks the body as truncated, in its event, in ``GET /v1/deliveries/{id}`` and in the
audit timeline. A delivery whose answer ended where its framing said carries no such mark, and
its event's bytes are what they were before the field existed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import msgspec
import pytest
from aiohttp.test_utils import TestServer

from hookproof.engine.audit.timeline import delivery_timeline
from hookproof.engine.runtime.daemon import Engine
from hookproof.events import decode_event, encode_event
from hookproof.events.delivery_events import AttemptFailed, EndpointAccepted

from ..live import ADMIN_TOKEN, Client
from .conftest import Subscriber, active_subscription, delivery, dispatch_all, publish


@pytest.fixture
async def base(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[str]:
    monkeypatch.setenv("HOOKPROOF_ADMIN_TOKEN", ADMIN_TOKEN)
    server = TestServer(engine.app(), host="127.0.0.1")
    await server.start_server()
    yield str(server.make_url("")).rstrip("/")
    await server.close()


async def _outcome_data(engine: Engine, delivery_id: str) -> dict:  # type: ignore[type-arg]
    """The stored data of the delivery's one outcome event (accepted or failed)."""
    events = await engine.store.read_stream(f"delivery-{delivery_id}")
    (rec,) = [r for r in events if isinstance(r.decode(), EndpointAccepted | AttemptFailed)]
    return msgspec.json.decode(rec.data)


async def test_a_2xx_cut_by_a_bare_fin_is_accepted_and_marked_truncated(
    engine: Engine, subscriber: Subscriber, base: str
) -> None:
    acme = await engine.tenants.create("acme")
    await active_subscription(engine, acme.tenant_id, subscriber.url("cut-a"))
    await active_subscription(engine, acme.tenant_id, subscriber.url("ok-b"))
    await active_subscription(engine, acme.tenant_id, subscriber.url("cut500-c"))
    published = await publish(engine, acme.tenant_id, "evt-1")
    await dispatch_all(engine)
    ids = [d["deliveryId"] for d in published.deliveries]
    views = {did: await delivery(engine, acme.tenant_id, did) for did in ids}
    cut = next(v for v in views.values() if v["endpoint"].endswith("/cut-a"))
    ok = next(v for v in views.values() if v["endpoint"].endswith("/ok-b"))
    failed = next(v for v in views.values() if v["endpoint"].endswith("/cut500-c"))

    # the status stays what it was; the body is marked incomplete
    assert cut["state"] == "ENDPOINT_ACCEPTED"
    assert cut["evidence"]["endpoint"] == "ENDPOINT_ACCEPTED"
    (attempt,) = cut["attempts"]
    assert attempt["outcome"] == "ENDPOINT_ACCEPTED" and attempt["status"] == 200
    assert attempt["bodyTruncated"] is True
    assert (await _outcome_data(engine, cut["deliveryId"]))["body_truncated"] is True

    (attempt,) = failed["attempts"]
    assert attempt["status"] == 500 and attempt["code"] == "http_500"
    assert attempt["bodyTruncated"] is True
    assert (await _outcome_data(engine, failed["deliveryId"]))["body_truncated"] is True

    # a framed answer: no mark, and the stored event has no such field (bytes as before)
    (attempt,) = ok["attempts"]
    assert attempt["status"] == 204 and attempt["bodyTruncated"] is False
    assert "body_truncated" not in await _outcome_data(engine, ok["deliveryId"])

    timeline = await delivery_timeline(engine.store, cut["deliveryId"])
    (entry,) = [e for e in timeline.entries if "ENDPOINT_ACCEPTED 200" in e.outcome]
    assert "body truncated" in entry.outcome
    timeline = await delivery_timeline(engine.store, ok["deliveryId"])
    assert not any("truncated" in e.outcome for e in timeline.entries)

    # what the console reads: GET /v1/deliveries/{id} and its timeline
    async with aiohttp.ClientSession() as http:
        client = Client(http, base, acme.token)
        status, body = await client.call("GET", f"/v1/deliveries/{cut['deliveryId']}")
        assert status == 200 and body["attempts"][0]["bodyTruncated"] is True
        status, body = await client.call("GET", f"/v1/deliveries/{cut['deliveryId']}/timeline")
        assert status == 200
        assert any("body truncated" in e["outcome"] for e in body["entries"])


def test_old_outcome_events_decode_as_not_truncated() -> None:
    """Events written before the field existed decode unchanged (no truncation recorded)."""
    old = (
        b'{"at":"2026-01-01T00:00:00+00:00","attempt":1,"delivery_id":"d1","duration_ms":1.0,'
        b'"peer_address":null,"spki_sha256":null,"status":200,'
        b'"type":"delivery.endpoint_accepted"}'
    )
    event = decode_event("delivery.endpoint_accepted", 1, old)
    assert isinstance(event, EndpointAccepted) and event.body_truncated is not True
    assert encode_event(event) == old  # a record without the mark: the same bytes as before
