"""RabbitMQ destinations against a real broker (HOOKPROOF_TEST_AMQP_URL; skipped, saying why,
where none answers): confirmed deliveries verified by the SDK from their headers and body,
``unroutable`` and ``broker_nack`` never accepted, a connection the broker closes while its
confirmation is in flight reported UNKNOWN_TRANSPORT and then accepted under the same
delivery id, connections pooled per credentials, the ``timestamp`` property the signing time."""

from __future__ import annotations

import asyncio
import secrets
import shutil
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import aio_pika
import pytest

from hookproof.engine.destinations.brokers.evidence import BrokerOutcome
from hookproof_subscriber import StaticKeyResolver, verify_broker_message

from .conftest import ENGINE_KEY, Rabbit, message_for

KEYS = StaticKeyResolver([ENGINE_KEY.verification_key()])


@pytest.fixture
async def channel(rabbit: Rabbit) -> AsyncIterator[aio_pika.abc.AbstractChannel]:
    """A consumer-side channel (aio-pika), as a subscriber would read the destination."""
    conn = await aio_pika.connect(rabbit.url)
    try:
        yield await conn.channel()
    finally:
        await conn.close()


async def bound_queue(channel: Any, exchange: str, key: str, **args: Any) -> Any:
    ex = await channel.declare_exchange(exchange, aio_pika.ExchangeType.DIRECT, durable=True)
    queue = await channel.declare_queue(f"{exchange}.q", durable=True, arguments=args or None)
    await queue.bind(ex, key)
    return ex, queue


async def drain(queue: Any, want: int, timeout: float = 10.0) -> list[Any]:
    got: list[Any] = []
    async with asyncio.timeout(timeout):
        while len(got) < want:
            msg = await queue.get(no_ack=True, fail=False)
            if msg is None:
                await asyncio.sleep(0.02)
                continue
            got.append(msg)
    return got


def _name() -> str:
    return f"hp-test-{secrets.token_hex(4)}"


async def test_confirmed_deliveries_arrive_and_verify(
    rabbit: Rabbit, channel: Any, make_publishers: Any
) -> None:
    name = _name()
    ex, queue = await bound_queue(channel, name, "orders")
    try:
        dest, creds = rabbit.destination(name, "orders")
        pubs = make_publishers((rabbit.host, rabbit.port))
        sent = [message_for(dest, n=i + 1) for i in range(20)]
        results = await asyncio.gather(*(pubs.publish(dest, m, creds) for m in sent))
        for ev in results:
            assert ev.outcome is BrokerOutcome.ACCEPTED, ev.evidence()
            assert ev.amqp is not None and ev.amqp.confirmed and not ev.amqp.returned
            assert ev.evidence()["amqp"]["confirmed"] is True
            assert ev.peer_address == rabbit.host and ev.peer_port == rabbit.port
            assert ev.published and ev.allowance_used and not ev.tls
        assert pubs.amqp.brokers.opened == 1  # one connection carried all twenty
        received = await drain(queue, len(sent))
        by_id = {m.message_id: m for m in received}
        assert set(by_id) == {m.message_id for m in sent}
        for m in sent:
            got = by_id[m.message_id]
            assert got.delivery_mode == aio_pika.DeliveryMode.PERSISTENT
            assert got.content_type == "application/json" and got.body == m.body
            # the timestamp property is the attempt's signing time, the signature's created
            assert m.created > 0 and got.timestamp == datetime.fromtimestamp(m.created, UTC)
            assert f";created={m.created};" in got.headers["signature-input"]
            delivery = await verify_broker_message(got.headers, got.body, dest.uri, keys=KEYS)
            assert delivery.event.delivery_id == m.message_id
    finally:
        await queue.delete(if_unused=False, if_empty=False)
        await ex.delete()


async def test_no_binding_is_unroutable_never_accepted(
    rabbit: Rabbit, channel: Any, make_publishers: Any
) -> None:
    name = _name()
    ex = await channel.declare_exchange(name, aio_pika.ExchangeType.DIRECT, durable=True)
    try:
        dest, creds = rabbit.destination(name, "nobody-listens")
        pubs = make_publishers((rabbit.host, rabbit.port))
        ev = await pubs.publish(dest, message_for(dest), creds)
        assert ev.outcome is BrokerOutcome.REJECTED and ev.code == "unroutable"
        assert ev.amqp is not None and ev.amqp.returned and not ev.amqp.confirmed
        assert ev.amqp.reply_code == 312 and ev.amqp.reply_text == "NO_ROUTE"
        # the same connection and channel still work afterwards
        queue = await channel.declare_queue(f"{name}.q", durable=True)
        await queue.bind(ex, "nobody-listens")
        again = await pubs.publish(dest, message_for(dest), creds)
        assert again.ok and again.reused
        await queue.delete(if_unused=False, if_empty=False)
    finally:
        await ex.delete()


async def test_nack_and_missing_exchange_are_failures(
    rabbit: Rabbit, channel: Any, make_publishers: Any
) -> None:
    name = _name()
    ex, queue = await bound_queue(
        channel, name, "full", **{"x-max-length": 0, "x-overflow": "reject-publish"}
    )
    try:
        dest, creds = rabbit.destination(name, "full")
        pubs = make_publishers((rabbit.host, rabbit.port))
        ev = await pubs.publish(dest, message_for(dest), creds)
        assert ev.outcome is BrokerOutcome.REJECTED and ev.code == "broker_nack"
        assert ev.amqp is not None and ev.amqp.nacked
        missing, _ = rabbit.destination(name + "-missing", "x")
        gone = await pubs.publish(missing, message_for(missing), creds)
        assert gone.outcome is BrokerOutcome.REJECTED and gone.code == "broker_refused"
        assert "NOT_FOUND" in gone.detail and isinstance(gone.error.__cause__, Exception)
        # another destination on the same connection is not affected by that channel's close
        ok = await pubs.publish(dest, message_for(dest), creds)
        assert ok.code == "broker_nack" and ok.reused
    finally:
        await queue.delete(if_unused=False, if_empty=False)
        await ex.delete()


async def test_connections_never_shared_across_credentials(
    rabbit: Rabbit, make_publishers: Any
) -> None:
    dest, creds = rabbit.destination("amq.direct", "x")
    pubs = make_publishers((rabbit.host, rabbit.port))
    from hookproof.engine.destinations.brokers.spec import credentials_digest, digest_key

    key = digest_key(b"m" * 32)
    first = await pubs.publish(
        dest, message_for(dest), creds, credentials_digest=credentials_digest(creds, key)
    )
    assert first.code == "unroutable"
    wrong = dataclass_replace(creds, password=creds.password + "-wrong")
    bad = await pubs.publish(
        dest, message_for(dest), wrong, credentials_digest=credentials_digest(wrong, key)
    )
    assert bad.outcome is BrokerOutcome.REJECTED and bad.code == "broker_auth_failed"
    assert not bad.reused  # a new connection was tried for the other credentials
    assert pubs.amqp.brokers.opened == 1 and len(pubs.amqp.brokers) == 1


def dataclass_replace(obj: Any, **kw: Any) -> Any:
    import dataclasses

    return dataclasses.replace(obj, **kw)


# -- the broker closes the connection between publish and confirm ----------------------------


class Relay:
    """A loopback TCP relay in front of RabbitMQ whose broker-to-client direction can be held:
    bytes the broker sends while held are kept back; :meth:`reset` then drops them with the
    connection (a confirmation, and the broker's close, lost in flight with its connection)."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.hold = False
        self.upstream_after_hold = 0
        self.held = bytearray()
        self.upstream_ports: list[int] = []
        self.server: asyncio.Server | None = None
        self.writers: list[asyncio.StreamWriter] = []

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def _serve(self, c_reader: asyncio.StreamReader, c_writer: asyncio.StreamWriter) -> None:
        b_reader, b_writer = await asyncio.open_connection(*self.target)
        self.writers += [c_writer, b_writer]
        self.upstream_ports.append(b_writer.get_extra_info("sockname")[1])

        async def up() -> None:
            while data := await c_reader.read(65536):
                if self.hold:
                    self.upstream_after_hold += len(data)
                b_writer.write(data)
                await b_writer.drain()

        async def down() -> None:
            while data := await b_reader.read(65536):
                if self.hold:
                    self.held += data
                    continue
                c_writer.write(data)
                await c_writer.drain()
            if self.hold:  # the broker closed with our confirmation held: lose it, reset
                c_writer.transport.abort()
            else:
                c_writer.close()

        tasks = [asyncio.ensure_future(up()), asyncio.ensure_future(down())]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            b_writer.close()
            c_writer.transport.abort()

    def reset(self) -> None:
        """Reset every relayed connection (both sides), dropping the held bytes."""
        self.held.clear()
        for writer in self.writers:
            writer.transport.abort()

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()


async def until(condition: Any, timeout: float = 10.0) -> None:
    for _ in range(int(timeout / 0.01)):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise TimeoutError("condition not met")


async def rabbitmqctl(*args: str) -> str:
    proc = await asyncio.create_subprocess_exec(
        "rabbitmqctl", *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    return out.decode()


async def test_broker_closing_before_the_confirm_is_unknown_then_accepted(
    rabbit: Rabbit, channel: Any, make_publishers: Any
) -> None:
    if shutil.which("rabbitmqctl") is None:
        pytest.skip("rabbitmqctl is not available to close a connection from the broker side")
    try:
        await rabbitmqctl("list_connections", "-q", "name")
    except AssertionError as exc:
        pytest.skip(f"rabbitmqctl cannot reach the broker: {exc}")
    name = _name()
    ex, queue = await bound_queue(channel, name, "orders")
    relay = Relay((rabbit.host, rabbit.port))
    port = await relay.start()
    try:
        dest, creds = rabbit.destination(name, "orders", port=port)
        pubs = make_publishers((rabbit.host, port), timeout_s=20.0)
        warm = await pubs.publish(dest, message_for(dest), creds)
        assert warm.ok  # connected, channel in confirm mode
        msg = message_for(dest)
        relay.hold = True
        task = asyncio.ensure_future(pubs.publish(dest, msg, creds))
        await until(lambda: relay.upstream_after_hold >= len(msg.body))
        # the broker has the publish; find our connection by the relay's port and close it
        listing = await rabbitmqctl(
            "list_connections", "-q", "--no-table-headers", "pid", "peer_port"
        )
        rows = [line.split("\t") for line in listing.splitlines() if "\t" in line]
        ours = [pid for pid, peer in rows if int(peer) in relay.upstream_ports]
        assert ours, listing
        await rabbitmqctl("close_connection", ours[0], "hookproof test: closed before confirm")
        await until(lambda: len(relay.held) >= 20)  # the broker's close, held with the ack
        relay.reset()  # ... and the connection dies with both in flight
        lost = await asyncio.wait_for(task, 20)
        assert lost.outcome is BrokerOutcome.UNKNOWN, lost.evidence()
        assert lost.code == "connection_lost" and lost.published and not lost.ok
        relay.hold = False
        again = await pubs.publish(dest, msg, creds)  # the retry: same delivery identity
        assert again.ok and not again.reused and again.message_id == msg.message_id
        received = await drain(queue, 2)  # warm-up + at least the retry
        await asyncio.sleep(0.3)
        while (extra := await queue.get(no_ack=True, fail=False)) is not None:
            received.append(extra)
        ids = [m.message_id for m in received]
        assert msg.message_id in ids and warm.message_id in ids
        # the broker may also hold the first attempt: the consumer dedupes by message_id
        assert set(ids) <= {msg.message_id, warm.message_id}
    finally:
        await relay.close()
        await queue.delete(if_unused=False, if_empty=False)
        await ex.delete()
