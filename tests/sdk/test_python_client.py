"""The Python sender SDK (``hookproof_client``, clients/python) against a real ``hookproof
serve`` process and a real HTTPS receiver (trustme): a consumer, an event type and a
subscription made with it, single and batch publishes that reach the receiver, the delivery
log across pages, a dead letter replayed, a portal session started and ended, a conflict as a
typed problem; the same with the asyncio client. And a publish whose first connection is cut
after the engine accepted the event: the retry sends the same eventId, the engine keeps one
event."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
import trustme

from hookproof.engine.api.openapi import openapi_document
from hookproof_client import AsyncClient, Client, HookproofProblem, OutgoingEvent, RetryPolicy

from ..daemon import Daemon
from ..delivery.conftest import Subscriber
from ..live import engine_env, new_tenant, start, stop

DOC = openapi_document()
RETRIES = {"initialDelayS": 0.2, "maxDelayS": 0.5, "maxAttempts": 1}
VERSIONS = {1: {"schema": {"type": "object"}, "example": {"n": 0}}}


@pytest.fixture
async def daemon(
    db_url: str, tmp_path: Path, subscriber: Subscriber, ca: trustme.CA
) -> AsyncIterator[tuple[Daemon, str]]:
    env = engine_env(db_url, tmp_path, subscriber.port, ca)
    d = await start(env, tmp_path)
    try:
        _, token = await new_tenant(env, "acme")
        yield d, token
    finally:
        await stop(d)


def until(pred: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    """Poll *pred* (a bound for a hung test, not a speed assertion)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def received_ids(sub: Subscriber, path: str) -> set[str]:
    return {json.loads(r.body)["eventId"] for r in sub.deliveries(path)}


def conforms(hp: Client, path: str, name: str) -> None:
    """The body the engine serves at *path* validates against the document's *name*."""
    answer = hp.api.get_httpx_client().get(path)
    assert answer.status_code == 200, answer.text
    schema = {"$ref": f"#/components/schemas/{name}", "components": DOC["components"]}
    jsonschema_rs.validator_for(schema).validate(answer.json())


def sync_scenario(base: str, token: str, sub: Subscriber) -> None:
    """Everything a sender does, with the blocking client (run in a thread: the receiver
    answers on the test's event loop meanwhile)."""
    with Client(base, token) as hp:
        consumer = hp.create_consumer("cust-1", "Customer 1", metadata={"plan": "pro"})
        assert consumer.id == "cust-1" and consumer.state.value == "ACTIVE"
        et = hp.create_event_type("order.created", "An order was placed", VERSIONS)
        assert et.topic == "order.created" and et.version >= 1
        created = hp.create_subscription(
            sub.url("ok-sync"),
            ["order.created"],
            owner="team-shop",
            region="eu",
            consumer_id="cust-1",
            extra={"retryPolicy": RETRIES},
        )
        sid = created.id
        until(lambda: hp.get_subscription(sid).state == "ACTIVE", f"{sid} ACTIVE")
        assert sid in {s.id for s in hp.iter_subscriptions(consumer_id="cust-1", page_size=1)}

        at = "2026-12-02T10:00:00+00:00"
        first = hp.publish("order.created", {"n": 1}, consumer_id="cust-1", occurred_at=at)
        assert first.created and [d.subscription_id for d in first.deliveries] == [sid]
        batch = hp.publish_batch(
            OutgoingEvent("order.created", {"n": n}, consumer_id="cust-1") for n in (2, 3, 4)
        )
        assert [r.status.value for r in batch.results] == [202, 202, 202]
        ids = {first.event_id} | {str(r.event_id) for r in batch.results}
        until(lambda: received_ids(sub, "ok-sync") == ids, "four events received")

        log = list(hp.iter_deliveries(subscription_id=sid, page_size=2))
        assert len(log) == 4 and {d.event_id for d in log} == ids
        assert len({d.delivery_id for d in log}) == 4

        with pytest.raises(HookproofProblem) as conflict:
            hp.publish("order.created", {"n": 99}, event_id=first.event_id, consumer_id="cust-1")
        assert conflict.value.status == 409
        assert conflict.value.code == "event_payload_conflict"
        # the same event again (same id, payload and time): recognised, nothing new
        again = hp.publish(
            "order.created", {"n": 1}, event_id=first.event_id, consumer_id="cust-1", occurred_at=at
        )
        assert again.created is False and again.event_id == first.event_id

        # no occurredAt pinned: none is sent, the engine records when it accepted the event,
        # and the same id and payload published again without one (here by another client,
        # as a retry from another process would be) is the same event, not a conflict
        plain = hp.publish("order.created", {"n": 7}, consumer_id="cust-1")
        assert plain.created and [d.subscription_id for d in plain.deliveries] == [sid]
        with Client(base, token) as other:
            repost = other.publish(
                "order.created", {"n": 7}, event_id=plain.event_id, consumer_id="cust-1"
            )
        assert repost.created is False and repost.payload_digest == plain.payload_digest
        assert repost.deliveries == plain.deliveries
        # the receiver gets the engine's time; a different time set by the sender conflicts
        until(lambda: plain.event_id in received_ids(sub, "ok-sync"), "the unpinned event")
        [body] = [
            json.loads(r.body)
            for r in sub.deliveries("ok-sync")
            if json.loads(r.body)["eventId"] == plain.event_id
        ][:1]
        assert datetime.fromisoformat(body["occurredAt"]).tzinfo is not None
        with pytest.raises(HookproofProblem) as moved:
            hp.publish(
                "order.created",
                {"n": 7},
                event_id=plain.event_id,
                consumer_id="cust-1",
                occurred_at="2020-01-01T00:00:00+00:00",
            )
        assert moved.value.code == "event_payload_conflict"

        # a dead letter, replayed once the receiver is fixed
        failing = hp.create_subscription(
            sub.url("fail500-sync"),
            ["order.failed"],
            owner="team-shop",
            region="eu",
            extra={"retryPolicy": RETRIES},
        ).id
        until(lambda: hp.get_subscription(failing).state == "ACTIVE", f"{failing} ACTIVE")
        did = hp.publish("order.failed", {"n": 5}).deliveries[0].delivery_id
        until(lambda: hp.get_delivery(did).state == "DEAD_LETTER", f"{did} DEAD_LETTER")
        conforms(hp, f"/v1/deliveries/{did}", "Delivery")
        conforms(hp, "/v1/dead-letters", "DeadLetterPage")
        assert did in {d.delivery_id for d in hp.iter_dead_letters(page_size=1)}
        sub.modes["fail500-sync"] = "ok"
        hp.replay(did)
        until(lambda: hp.get_delivery(did).state == "ENDPOINT_ACCEPTED", f"{did} accepted")
        conforms(hp, f"/v1/deliveries/{did}", "Delivery")
        conforms(hp, f"/v1/events/{first.event_id}", "EventView")

        link = hp.create_portal_session("cust-1", ttl_seconds=600, capabilities=["read"])
        assert "/portal/" in link.url and link.url.endswith("#portal=" + link.token)
        with Client(base, link.token) as portal:
            assert portal.get_subscription(sid).id == sid  # the consumer's own endpoint
            hp.end_portal_session(link.session_id)
            with pytest.raises(HookproofProblem) as ended:
                portal.get_subscription(sid)
            assert ended.value.status == 401 and ended.value.code == "portal_session_expired"


async def async_until(pred: Callable[[], Any], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if await pred():
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


async def test_sync_client_against_a_real_engine(
    daemon: tuple[Daemon, str], subscriber: Subscriber
) -> None:
    d, token = daemon
    await asyncio.to_thread(sync_scenario, d.base_url, token, subscriber)


async def test_async_client_against_a_real_engine(
    daemon: tuple[Daemon, str], subscriber: Subscriber
) -> None:
    d, token = daemon
    async with AsyncClient(d.base_url, token) as hp:
        await hp.create_consumer("cust-2", "Customer 2")
        await hp.create_event_type("order.created", "An order was placed", VERSIONS)
        created = await hp.create_subscription(
            subscriber.url("ok-async"),
            ["order.created"],
            owner="team-shop",
            region="eu",
            consumer_id="cust-2",
            extra={"retryPolicy": RETRIES},
        )
        sid = created.id

        async def active(sid: str = sid) -> bool:
            return (await hp.get_subscription(sid)).state == "ACTIVE"

        await async_until(active, f"{sid} ACTIVE")
        first = await hp.publish("order.created", {"n": 1}, consumer_id="cust-2")
        batch = await hp.publish_batch(
            [OutgoingEvent("order.created", {"n": n}, consumer_id="cust-2") for n in (2, 3)]
        )
        assert [r.status.value for r in batch.results] == [202, 202]
        ids = {first.event_id} | {str(r.event_id) for r in batch.results}

        async def received() -> bool:
            return received_ids(subscriber, "ok-async") == ids

        await async_until(received, "three events received")
        log = [d async for d in hp.iter_deliveries(subscription_id=sid, page_size=2)]
        assert {d.event_id for d in log} == ids and len(log) == 3
        consumers = [c.id async for c in hp.iter_consumers(page_size=1)]
        assert consumers == ["cust-2"]

        with pytest.raises(HookproofProblem) as conflict:
            await hp.publish(
                "order.created", {"n": 0}, event_id=first.event_id, consumer_id="cust-2"
            )
        assert conflict.value.code == "event_payload_conflict" and conflict.value.status == 409

        failing = (
            await hp.create_subscription(
                subscriber.url("fail500-async"),
                ["order.failed"],
                owner="team-shop",
                region="eu",
                extra={"retryPolicy": RETRIES},
            )
        ).id
        await async_until(lambda: active(failing), f"{failing} ACTIVE")
        did = (await hp.publish("order.failed", {"n": 5})).deliveries[0].delivery_id

        async def state_is(state: str) -> bool:
            return (await hp.get_delivery(did)).state == state

        await async_until(lambda: state_is("DEAD_LETTER"), f"{did} DEAD_LETTER")
        assert did in {x.delivery_id async for x in hp.iter_dead_letters()}
        subscriber.modes["fail500-async"] = "ok"
        await hp.replay(did)
        await async_until(lambda: state_is("ENDPOINT_ACCEPTED"), f"{did} accepted")

        link = await hp.create_portal_session("cust-2")
        assert "/portal/" in link.url and link.session_id.startswith("ps_")
        await hp.end_portal_session(link.session_id)
        async with AsyncClient(d.base_url, link.token) as portal:
            with pytest.raises(HookproofProblem) as ended:
                await portal.get_subscription(sid)
            assert ended.value.code == "portal_session_expired"


#: what a proxy answers instead of the engine: a 503 problem, as the engine's database net
#: sends it (Retry-After), on a connection it then closes
UNAVAILABLE = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/problem+json\r\n"
    b"Retry-After: 0\r\nConnection: close\r\nContent-Length: 87\r\n\r\n"
    b'{"type":"about:blank","title":"Unavailable","status":503,"code":"database_unavailable"}'
)


class CutFirstAnswer:
    """A loopback TCP proxy to the engine. ``lose``: it forwards the first request, reads the
    engine's whole answer and then closes the client's connection without it (the answer is
    lost after the engine acted); ``unavailable``: the first request gets a 503 and never
    reaches the engine. Later connections pass through."""

    def __init__(self, upstream_port: int, mode: str = "lose") -> None:
        self.mode = mode
        self.upstream_port = upstream_port
        self.connections = 0
        self.port = 0
        self.server: asyncio.Server | None = None

    async def start(self) -> None:
        self.server = await asyncio.start_server(self.handle, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        assert self.server is not None
        self.server.close()
        await self.server.wait_closed()

    @staticmethod
    async def message(reader: asyncio.StreamReader) -> bytes:
        head = await reader.readuntil(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        return head + await reader.readexactly(length)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        try:
            if self.connections == 1 and self.mode == "unavailable":
                await self.message(reader)
                writer.write(UNAVAILABLE)
                await writer.drain()
                return
            if self.connections == 1:
                up_writer.write(await self.message(reader))
                await up_writer.drain()
                await self.message(up_reader)  # the engine answered: drop it
                return

            async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
                dst.close()

            await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()
            up_writer.close()


@pytest.mark.parametrize(
    ("kind", "mode"),
    [("sync", "lose"), ("async", "lose"), ("sync", "unavailable"), ("async", "unavailable")],
)
async def test_publish_retries_with_the_same_event_id(
    daemon: tuple[Daemon, str], kind: str, mode: str
) -> None:
    d, token = daemon
    port = int(d.base_url.rsplit(":", 1)[1])
    proxy = CutFirstAnswer(port, mode)
    await proxy.start()
    base = f"http://127.0.0.1:{proxy.port}"
    retry = RetryPolicy(attempts=3, base_s=0.05)
    try:
        if kind == "sync":

            def publish() -> Any:
                with Client(base, token, retry=retry) as hp:
                    return hp.publish("order.created", {"n": 1})

            accepted = await asyncio.to_thread(publish)
        else:
            async with AsyncClient(base, token, retry=retry) as hp:
                accepted = await hp.publish("order.created", {"n": 1})
    finally:
        await proxy.close()
    assert proxy.connections == 2  # the first answer was lost (or a 503), one retry
    # lost: the first try created the event, the retry carried the same id and was
    # recognised; 503: the first try never reached the engine, the retry created it
    assert accepted.created is (mode == "unavailable") and accepted.event_id.startswith("evt_")
    async with AsyncClient(d.base_url, token) as hp:
        view = await hp.get_event(accepted.event_id)
        assert view.event_id == accepted.event_id and view.topic == "order.created"
