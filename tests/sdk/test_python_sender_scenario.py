"""Issue 49's sender scenario with the Python SDK's hand-written layer only (no raw request):
against a real ``hookproof serve`` and a real HTTPS receiver (trustme), the asyncio client
defines an event type, a consumer (renamed, later disabled) and subscriptions, changes one
with ``If-Match`` from the last ``ETag`` (a stale ETag is a typed 412 naming the current one),
publishes single and batch, pages the delivery log with filters, reads a delivery, its
attempts and timeline, sends a test event, replays one dead letter and recovers another,
lists and ends portal sessions, sets the portal's branding, revokes a subscription, and gets
the typed problems: ``PayloadConflict`` (409), ``NotFound`` (404), ``InvalidRequest`` (400),
``PreconditionFailed`` (412). The blocking client runs the same ``If-Match`` path."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from hookproof_client import (
    AsyncClient,
    Client,
    HookproofProblem,
    InvalidRequest,
    NotFound,
    OutgoingEvent,
    PayloadConflict,
    PreconditionFailed,
    Unauthorized,
)
from hookproof_client.generated.models.get_v1_deliveries_state import GetV1DeliveriesState

from ..daemon import Daemon
from ..delivery.conftest import Subscriber
from .test_python_client import async_until, daemon

__all__ = ["daemon"]

ONE_TRY = {"initialDelayS": 0.2, "maxDelayS": 0.5, "maxAttempts": 1}
VERSIONS = {
    1: {
        "schema": {
            "type": "object",
            "required": ["orderId"],
            "properties": {"orderId": {"type": "string"}},
        },
        "example": {"orderId": "o-example"},
    }
}


def received(sub: Subscriber, path: str) -> list[dict[str, Any]]:
    return [json.loads(r.body) for r in sub.deliveries(path)]


async def active(hp: AsyncClient, sid: str) -> None:
    async def probe() -> bool:
        return (await hp.get_subscription(sid)).state == "ACTIVE"

    await async_until(probe, f"{sid} ACTIVE")


async def delivery_state(hp: AsyncClient, did: str, state: str) -> None:
    async def probe() -> bool:
        return (await hp.get_delivery(did)).state == state

    await async_until(probe, f"{did} {state}")


async def test_the_sender_scenario_with_the_asyncio_client(
    daemon: tuple[Daemon, str], subscriber: Subscriber
) -> None:
    d, token = daemon
    started = datetime.now(UTC) - timedelta(minutes=1)
    async with AsyncClient(d.base_url, token) as hp, AsyncClient(d.base_url, token) as other:
        assert (await hp.whoami()).kind.value == "tenant"

        # the catalogue
        et = await hp.create_event_type("order.created", "An order was placed", VERSIONS)
        assert (await hp.get_event_type("order.created")).version == et.version
        await hp.create_event_type("order.failed", "An order failed", VERSIONS)
        topics = [t.topic async for t in hp.iter_event_types(page_size=1)]
        assert topics == ["order.created", "order.failed"]

        # a consumer, renamed
        await hp.create_consumer("cust-s", "Customer S", metadata={"plan": "pro"})
        renamed = await hp.update_consumer("cust-s", name="Customer S2", metadata={"plan": "max"})
        assert renamed.name == "Customer S2"
        assert (await hp.get_consumer("cust-s")).metadata.to_dict() == {"plan": "max"}

        # a subscription to a local receiver, ACTIVE
        created = await hp.create_subscription(
            subscriber.url("ok-scn"),
            ["order.created"],
            owner="team-shop",
            region="eu",
            consumer_id="cust-s",
            extra={"retryPolicy": ONE_TRY},
        )
        sid = created.id
        await active(hp, sid)

        # PATCH with If-Match from the last ETag; a stale one is a typed 412
        await other.get_subscription(sid)  # other's ETag: this generation
        stale = other.etags.get(sid)
        changed = await hp.update_subscription(sid, {"topics": ["order.created", "order.shipped"]})
        assert changed.generation == created.generation + 1
        assert sorted(changed.topics) == ["order.created", "order.shipped"]
        assert hp.etags.get(sid) == f'"{changed.generation}"' != stale
        with pytest.raises(PreconditionFailed) as lost:
            await other.update_subscription(sid, {"topics": ["order.created"]})
        assert lost.value.status == 412 and lost.value.code == "generation_mismatch"
        assert lost.value.current_generation == changed.generation
        assert lost.value.etag == hp.etags.get(sid)
        assert (await hp.get_subscription(sid)).topics == changed.topics  # nothing changed
        await active(hp, sid)  # the new generation, challenged again

        # publish single and batch; the same event again is not a conflict
        single = await hp.publish("order.created", {"orderId": "o-1"}, consumer_id="cust-s")
        again = await other.publish(
            "order.created", {"orderId": "o-1"}, event_id=single.event_id, consumer_id="cust-s"
        )
        assert single.created and not again.created and again.deliveries == single.deliveries
        batch = await hp.publish_batch(
            OutgoingEvent("order.created", {"orderId": f"o-{n}"}, consumer_id="cust-s")
            for n in (2, 3)
        )
        assert [r.status.value for r in batch.results] == [202, 202]
        ids = {single.event_id} | {str(r.event_id) for r in batch.results}

        async def all_received() -> bool:
            return {b["eventId"] for b in received(subscriber, "ok-scn")} == ids

        await async_until(all_received, "three events received")

        # the delivery log, filtered, across pages of one
        async def accepted_log() -> bool:
            log = [
                x
                async for x in hp.iter_deliveries(
                    page_size=1,
                    subscription_id=sid,
                    event_type="order.created",
                    state=GetV1DeliveriesState.ENDPOINT_ACCEPTED,
                    since=started,
                )
            ]
            return {x.event_id for x in log} == ids and len(log) == 3

        await async_until(accepted_log, "three accepted deliveries in the log")

        # a delivery, its attempts and its timeline
        did = single.deliveries[0].delivery_id
        delivery = await hp.get_delivery(did)
        assert delivery.state == "ENDPOINT_ACCEPTED" and len(delivery.attempts) >= 1
        timeline = [e async for e in hp.iter_delivery_timeline(did, page_size=1)]
        assert len(timeline) >= 2
        sub_timeline = [e async for e in hp.iter_subscription_timeline(sid, page_size=2)]
        assert len(sub_timeline) >= 2
        history = [e.to_dict()["type"] async for e in hp.iter_history(sid)]
        assert history[0] == "subscription.registered" and "subscription.updated" in history

        # the typed problems
        with pytest.raises(PayloadConflict) as conflict:
            await hp.publish("order.created", {"orderId": "o-x"}, event_id=single.event_id)
        assert conflict.value.status == 409 and conflict.value.code == "event_payload_conflict"
        assert conflict.value.payload_digest == single.payload_digest
        with pytest.raises(NotFound) as missing:
            await hp.get_subscription("sub_" + "0" * 24)
        assert missing.value.status == 404 and missing.value.code
        with pytest.raises(InvalidRequest) as invalid:
            await hp.create_consumer("not an id!", "Bad")
        assert invalid.value.status == 400 and invalid.value.field == "id"
        assert isinstance(invalid.value, HookproofProblem)

        # a test event to the one endpoint
        test = await hp.send_test_event(sid, topic="order.created")
        assert test.test and test.event_id.startswith("hookproof-test-")

        async def test_received() -> bool:
            return any(b["eventId"] == test.event_id for b in received(subscriber, "ok-scn"))

        await async_until(test_received, "the test event")

        # two dead letters: one replayed, one recovered
        failing = (
            await hp.create_subscription(
                subscriber.url("fail500-scn"),
                ["order.failed"],
                owner="team-shop",
                region="eu",
                extra={"retryPolicy": ONE_TRY},
            )
        ).id
        await active(hp, failing)
        dead = [
            (await hp.publish("order.failed", {"orderId": f"f-{n}"})).deliveries[0].delivery_id
            for n in (1, 2)
        ]
        for x in dead:
            await delivery_state(hp, x, "DEAD_LETTER")
        assert set(dead) <= {x.delivery_id async for x in hp.iter_dead_letters(page_size=1)}
        subscriber.modes["fail500-scn"] = "ok"
        await hp.replay(dead[0])
        await delivery_state(hp, dead[0], "ENDPOINT_ACCEPTED")
        recovered = await hp.recover(failing, started, states=["DEAD_LETTER"])
        assert recovered.recovered == 1 and recovered.delivery_ids == [dead[1]]
        await delivery_state(hp, dead[1], "ENDPOINT_ACCEPTED")
        revoked = await hp.revoke_subscription(failing, reason="shop closed")
        assert revoked.state == "REVOKED"

        # portal sessions and branding
        branding = await hp.set_branding(
            display_name="Acme", accent_colour="#1a4f8b", frame_ancestors=["https://a.example"]
        )
        assert branding.display_name == "Acme"
        assert (await hp.get_branding()).frame_ancestors == ["https://a.example"]
        link = await hp.create_portal_session("cust-s", capabilities=["read"])
        listed = [s.id async for s in hp.iter_portal_sessions("cust-s")]
        assert listed == [link.session_id]
        async with AsyncClient(d.base_url, link.token) as portal:
            assert (await portal.get_subscription(sid)).id == sid
            assert await hp.end_portal_sessions("cust-s") == 1
            with pytest.raises(Unauthorized) as ended:
                await portal.get_subscription(sid)
            assert ended.value.code == "portal_session_expired"

        disabled = await hp.disable_consumer("cust-s", reason="left")
        assert disabled.state.value == "DISABLED"


def _blocking_if_match(base: str, token: str, sub: Subscriber) -> None:
    with Client(base, token) as hp, Client(base, token) as other:
        sid = hp.create_subscription(
            sub.url("ok-blk"), ["order.created"], owner="team-shop", region="eu"
        ).id
        assert hp.etags.get(sid) == '"1"'  # from the create's answer
        # other never read it: it reads first, then sends that ETag
        changed = other.update_subscription(sid, {"retryPolicy": ONE_TRY})
        assert changed.generation == 1 and other.etags.get(sid) == '"1"'
        hp.update_subscription(sid, {"topics": ["order.shipped"]})
        with pytest.raises(PreconditionFailed) as stale:
            other.update_subscription(sid, {"topics": ["order.created"]})
        assert stale.value.current_generation == 2
        redone = other.update_subscription(
            sid, {"topics": ["order.created"]}, if_match=stale.value.etag
        )
        assert redone.generation == 3 and redone.topics == ["order.created"]
        with pytest.raises(TypeError, match="toppics"):
            hp.update_subscription(sid, {"toppics": []})


async def test_if_match_with_the_blocking_client(
    daemon: tuple[Daemon, str], subscriber: Subscriber
) -> None:
    d, token = daemon
    await asyncio.to_thread(_blocking_if_match, d.base_url, token, subscriber)
