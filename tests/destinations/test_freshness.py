"""Broker consumers that do not lose messages (issue 48 item 4, DESIGN.md section 13
"Freshness"): a message that waited in a queue is judged by the broker's enqueue time and the
consumer's window (default 7 days), never the HTTP 300 s; a failed key download is
``keys_unavailable`` (transient) and the examples leave such a message for redelivery.

Real RabbitMQ (``HOOKPROOF_TEST_AMQP_URL``), the embedded NATS JetStream, and a real loopback
HTTP server for the engine's JWKS."""

from __future__ import annotations

import asyncio
import json
import secrets
import socket
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import aio_pika
import nats
import pytest
from aiohttp import web

from hookproof.engine.cli.embedded_nats import EmbeddedNats
from hookproof.engine.destinations.brokers.message import build_message
from hookproof.engine.destinations.brokers.spec import Destination, parse_destination
from hookproof.engine.keys.signing import Signer
from hookproof_subscriber import (
    JwksKeyResolver,
    MessageVerificationError,
    StaticKeyResolver,
    public_jwk,
    verify_broker_message,
    verify_message,
)

from .conftest import ENGINE_KEY, Rabbit, event_body
from .test_examples import load

KEYS = StaticKeyResolver([ENGINE_KEY.verification_key()])
TEN_MINUTES = 600
DAY = 24 * 3600
NATS_DEST, _ = parse_destination(
    {"type": "nats", "url": "tls://nats.example.com", "subject": "o.c", "stream": "O"}
)


def signed(dest: Destination, created: int, profile: str = "hookproof.sig.v1") -> Any:
    """The message the engine publishes, signed at *created* (lifetime 300 s, as it signs)."""
    event_id = f"evt_{secrets.token_hex(6)}"
    return build_message(
        dest.uri,
        event_body(event_id),
        event_id=event_id,
        delivery_id=f"dlv_{secrets.token_hex(8)}",
        subscription_id="sub_broker",
        generation=1,
        attempt=1,
        signers=[Signer(profile, ENGINE_KEY)],
        created=created,
        lifetime=300,
        traceparent=f"00-{secrets.token_hex(16)}-{secrets.token_hex(8)}-01",
    )


async def reason(msg: Any, dest: Destination, **kw: Any) -> str:
    try:
        await verify_broker_message(msg.headers, msg.body, dest.uri, keys=KEYS, **kw)
    except MessageVerificationError as exc:
        return exc.reason
    return "ok"


# -- the age rule (pure) ---------------------------------------------------------------------


@pytest.mark.parametrize("profile", ["hookproof.sig.v1", "standard-webhooks.v1"])
async def test_a_message_ten_minutes_in_a_queue_verifies(profile: str) -> None:
    now = int(time.time())
    msg = signed(NATS_DEST, now - TEN_MINUTES, profile)
    # the HTTP rule (the signature's 300 s) would refuse it: the reason this rule exists
    if profile == "hookproof.sig.v1":
        http = verify_message(msg.headers, msg.body, NATS_DEST.uri, keys=KEYS, freshness=None)
        assert http.reason == "expired"
    assert await reason(msg, NATS_DEST) == "ok"  # no broker time: judged from the signature
    assert await reason(msg, NATS_DEST, enqueued_at=now - TEN_MINUTES + 1) == "ok"
    at = datetime.fromtimestamp(now - TEN_MINUTES, UTC)
    assert await reason(msg, NATS_DEST, enqueued_at=at) == "ok"
    # a message read again the next day (a redelivery, the same nonce) still verifies
    assert await reason(msg, NATS_DEST, enqueued_at=at, now=now + DAY) == "ok"


@pytest.mark.parametrize("profile", ["hookproof.sig.v1", "standard-webhooks.v1"])
async def test_older_than_the_window_is_expired(profile: str) -> None:
    now = int(time.time())
    week_old = signed(NATS_DEST, now - 8 * DAY, profile)
    assert await reason(week_old, NATS_DEST) == "expired"  # default window: 7 days
    assert await reason(week_old, NATS_DEST, enqueued_at=now - 8 * DAY) == "expired"
    assert await reason(week_old, NATS_DEST, max_age=9 * DAY) == "ok"
    fresh = signed(NATS_DEST, now - TEN_MINUTES, profile)
    assert await reason(fresh, NATS_DEST, max_age=300) == "expired"  # the consumer's window
    queued = now - TEN_MINUTES
    assert await reason(fresh, NATS_DEST, enqueued_at=queued, max_age=300) == "expired"


async def test_the_enqueue_time_must_fit_the_signature() -> None:
    now = int(time.time())
    msg = signed(NATS_DEST, now - TEN_MINUTES)
    # the broker cannot have taken it before it was signed, nor after its signature expired
    assert await reason(msg, NATS_DEST, enqueued_at=now - 2 * TEN_MINUTES) == "not_yet_valid"
    assert await reason(msg, NATS_DEST, enqueued_at=now) == "expired"
    # a message dated in the future
    assert await reason(signed(NATS_DEST, now + 3600), NATS_DEST) == "not_yet_valid"
    with pytest.raises(MessageVerificationError) as bad:
        await verify_broker_message(msg.headers, msg.body, NATS_DEST.uri, keys=KEYS, max_age=0)
    assert bad.value.reason == "malformed" and not bad.value.transient


# -- real brokers ----------------------------------------------------------------------------


@pytest.fixture
async def amqp_queue(rabbit: Rabbit) -> AsyncIterator[tuple[Any, Any, Destination]]:
    name = f"hp-fresh-{secrets.token_hex(4)}"
    conn = await aio_pika.connect(rabbit.url)
    ch = await conn.channel()
    ex = await ch.declare_exchange(name, aio_pika.ExchangeType.DIRECT, durable=True)
    queue = await ch.declare_queue(f"{name}.q", durable=True)
    await queue.bind(ex, "k")
    dest, _ = rabbit.destination(name, "k")
    try:
        yield ex, queue, dest
    finally:
        await queue.delete(if_unused=False, if_empty=False)
        await ex.delete()
        await conn.close()


async def publish_amqp(ex: Any, msg: Any, enqueued_at: int) -> None:
    """Publish as the engine does, with the AMQP ``timestamp`` property at *enqueued_at*."""
    await ex.publish(
        aio_pika.Message(
            msg.body,
            headers=dict(msg.headers),
            content_type=msg.content_type,
            message_id=msg.message_id,
            delivery_mode=aio_pika.DeliveryMode.PERSISTENT,
            timestamp=datetime.fromtimestamp(enqueued_at, UTC),
        ),
        routing_key="k",
    )


async def test_amqp_message_consumed_ten_minutes_after_publish_is_applied(
    amqp_queue: tuple[Any, Any, Destination],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ex, queue, dest = amqp_queue
    then = int(time.time()) - TEN_MINUTES
    msg = signed(dest, then)
    await publish_amqp(ex, msg, then)
    incoming = await queue.get(timeout=5)
    assert int(incoming.timestamp.timestamp()) == then  # the broker hands the time back
    example = load("aio_pika_consumer", dest.uri, monkeypatch)
    await example.handle(incoming, KEYS)
    assert capsys.readouterr().out.startswith("apply ")
    assert await queue.get(timeout=2, fail=False) is None  # acked: gone for good
    # older than the consumer's window: refused, not requeued
    monkeypatch.setenv("MAX_AGE", "300")
    strict = load("aio_pika_consumer", dest.uri, monkeypatch)
    await publish_amqp(ex, signed(dest, then), then)
    await strict.handle(await queue.get(timeout=5), KEYS)
    assert "refused expired" in capsys.readouterr().out
    assert await queue.get(timeout=2, fail=False) is None


async def test_jetstream_message_consumed_ten_minutes_later_verifies(
    nats_server: EmbeddedNats, make_publishers: Any
) -> None:
    tag = secrets.token_hex(3)
    nc = await nats.connect(nats_server.url, allow_reconnect=False)
    js = nc.jetstream()
    await js.add_stream(name=f"FR{tag}", subjects=[f"fr{tag}.>"])
    try:
        dest, _ = parse_destination(
            {"type": "nats", "url": nats_server.url, "subject": f"fr{tag}.e", "stream": f"FR{tag}"},
            allow_pairs=[(nats_server.host, nats_server.port)],
        )
        pubs = make_publishers((nats_server.host, nats_server.port))
        published = int(time.time())
        msg = signed(dest, published)
        assert (await pubs.publish(dest, msg)).ok
        sub = await js.pull_subscribe(f"fr{tag}.e", durable=f"c{tag}", stream=f"FR{tag}")
        (got,) = await sub.fetch(1, timeout=5)
        stored = got.metadata.timestamp  # the stream's own time
        assert abs(stored.timestamp() - published) < 5
        later = published + TEN_MINUTES  # read ten minutes after it was stored
        kw: dict[str, Any] = {"keys": KEYS, "enqueued_at": stored, "now": later}
        delivery = await verify_broker_message(got.headers, got.data, dest.uri, **kw)
        assert delivery.event.delivery_id == msg.message_id
        with pytest.raises(MessageVerificationError) as late:
            await verify_broker_message(got.headers, got.data, dest.uri, max_age=300, **kw)
        assert late.value.reason == "expired" and not late.value.transient
        await got.ack()
    finally:
        await nc.close()


# -- a failed key download -------------------------------------------------------------------


class JwksServer:
    """The engine's JWKS on a real loopback HTTP server: ``503`` until ``up``."""

    def __init__(self) -> None:
        self.up = False
        self.keys: list[dict[str, Any]] = [{**public_jwk(ENGINE_KEY), "state": "ACTIVE"}]
        self.runner: web.AppRunner | None = None
        self.url = ""

    async def _jwks(self, request: web.Request) -> web.Response:
        if not self.up:
            return web.Response(status=503)
        return web.json_response({"keys": self.keys})

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/.well-known/hookproof/jwks.json", self._jwks)
        self.runner = web.AppRunner(app)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        port = self.runner.addresses[0][1]
        self.url = f"http://127.0.0.1:{port}"


@pytest.fixture
async def jwks_server() -> AsyncIterator[JwksServer]:
    server = JwksServer()
    await server.start()
    yield server
    assert server.runner is not None
    await server.runner.cleanup()


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("profile", ["hookproof.sig.v1", "standard-webhooks.v1"])
async def test_a_failed_key_download_is_keys_unavailable_not_unknown_key(
    jwks_server: JwksServer, profile: str
) -> None:
    msg = signed(NATS_DEST, int(time.time()), profile)
    keys = JwksKeyResolver.for_engine(jwks_server.url, min_refresh_interval=0)
    with pytest.raises(MessageVerificationError) as down:
        await verify_broker_message(msg.headers, msg.body, NATS_DEST.uri, keys=keys)
    assert down.value.reason == "keys_unavailable" and down.value.transient
    assert "could not be downloaded" in down.value.detail
    jwks_server.up = True  # the engine answers again: the same message verifies
    delivery = await verify_broker_message(msg.headers, msg.body, NATS_DEST.uri, keys=keys)
    assert delivery.event.event_id == json.loads(msg.body)["eventId"]
    # keys downloaded, the signing key not among them: that is unknown_key, permanent
    jwks_server.keys = []
    await keys.refresh()
    with pytest.raises(MessageVerificationError) as unknown:
        await verify_broker_message(msg.headers, msg.body, NATS_DEST.uri, keys=keys)
    assert unknown.value.reason == "unknown_key" and not unknown.value.transient
    # nothing listening at all
    gone = JwksKeyResolver.for_engine(f"http://127.0.0.1:{closed_port()}")
    with pytest.raises(MessageVerificationError) as refused:
        await verify_broker_message(msg.headers, msg.body, NATS_DEST.uri, keys=gone)
    assert refused.value.reason == "keys_unavailable"


async def test_the_aio_pika_example_requeues_what_it_cannot_verify_yet(
    amqp_queue: tuple[Any, Any, Destination],
    jwks_server: JwksServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ex, queue, dest = amqp_queue
    example = load("aio_pika_consumer", dest.uri, monkeypatch)
    keys = JwksKeyResolver.for_engine(jwks_server.url, min_refresh_interval=0)
    now = int(time.time())
    await publish_amqp(ex, signed(dest, now), now)
    await example.handle(await queue.get(timeout=5), keys)
    assert "retry later keys_unavailable" in capsys.readouterr().out
    again = await queue.get(timeout=5)  # requeued, not dropped
    assert again.redelivered
    jwks_server.up = True
    await example.handle(again, keys)
    assert capsys.readouterr().out.startswith("apply ")
    assert await queue.get(timeout=2, fail=False) is None


@pytest.mark.solo  # timing across processes: after the parallel part, alone (Makefile)
async def test_the_nats_example_naks_what_it_cannot_verify_yet_and_waits_out_timeouts(
    nats_server: EmbeddedNats,
    make_publishers: Any,
    jwks_server: JwksServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    tag = secrets.token_hex(3)
    nc = await nats.connect(nats_server.url, allow_reconnect=False)
    js = nc.jetstream()
    await js.add_stream(name=f"NK{tag}", subjects=[f"nk{tag}.>"])
    try:
        dest, _ = parse_destination(
            {"type": "nats", "url": nats_server.url, "subject": f"nk{tag}.e", "stream": f"NK{tag}"},
            allow_pairs=[(nats_server.host, nats_server.port)],
        )
        example = load("nats_consumer", dest.uri, monkeypatch)
        keys = JwksKeyResolver.for_engine(jwks_server.url, min_refresh_interval=0)
        sub = await js.pull_subscribe(f"nk{tag}.e", durable=f"c{tag}", stream=f"NK{tag}")
        # the consuming loop: empty fetches time out and are waited out, never fatal
        task = asyncio.create_task(example.consume(sub, keys))
        await asyncio.sleep(6)  # longer than one fetch's 5 s timeout
        assert not task.done()
        pubs = make_publishers((nats_server.host, nats_server.port))
        assert (await pubs.publish(dest, signed(dest, int(time.time())))).ok
        deadline = time.monotonic() + 10
        while "retry later keys_unavailable" not in capsys.readouterr().out:
            assert time.monotonic() < deadline and not task.done()
            await asyncio.sleep(0.1)
        jwks_server.up = True  # redelivered after the nak's delay, now applied
        seen = ""
        while "apply " not in seen:
            assert time.monotonic() < deadline + 10 and not task.done()
            await asyncio.sleep(0.1)
            seen += capsys.readouterr().out
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        info = await js.consumer_info(f"NK{tag}", f"c{tag}")
        assert info.num_ack_pending == 0 and info.num_pending == 0  # acked once applied
    finally:
        await nc.close()
