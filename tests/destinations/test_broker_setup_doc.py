"""The README's "Create the broker side first" (issue 48 item 4): the client-library snippet it
shows is run as written against a real RabbitMQ and NATS JetStream, and the engine's publisher
is accepted after it and refused with the documented codes before it."""

from __future__ import annotations

import re
import secrets
from pathlib import Path
from typing import Any

import aio_pika
import nats

from hookproof.engine.cli.embedded_nats import EmbeddedNats
from hookproof.engine.destinations.brokers.spec import parse_destination

from .conftest import Rabbit, message_for

README = Path(__file__).resolve().parents[2] / "README.md"


def snippet() -> dict[str, Any]:
    """The README's Python block that defines ``prepare_rabbitmq`` / ``prepare_jetstream``."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    (code,) = [b for b in blocks if "async def prepare_rabbitmq" in b]
    namespace: dict[str, Any] = {}
    exec(compile(code, str(README), "exec"), namespace)
    return namespace


def test_the_readme_names_what_must_exist_and_the_codes_without_it() -> None:
    text = README.read_text()
    section = text[text.index("**Create the broker side first.**") :][:3000]
    for needed in (
        "rabbitmqadmin declare exchange",
        "rabbitmqadmin declare binding",
        "nats stream add",
        "`broker_refused`",
        "`unroutable`",
        "`jetstream_no_stream`",
    ):
        assert needed in section, needed


async def test_the_rabbitmq_setup_makes_a_publish_accepted(
    rabbit: Rabbit, make_publishers: Any
) -> None:
    prepare = snippet()["prepare_rabbitmq"]
    name = f"hp-setup-{secrets.token_hex(4)}"
    dest, creds = rabbit.destination(name, "orders")
    pubs = make_publishers((rabbit.host, rabbit.port))
    before = await pubs.publish(dest, message_for(dest), creds)
    assert before.code == "broker_refused" and "NOT_FOUND" in before.detail  # no exchange
    await prepare(rabbit.url, exchange=name, queue=f"{name}.q", routing_key="other")
    conn = await aio_pika.connect(rabbit.url)
    try:
        unbound = await pubs.publish(dest, message_for(dest), creds)
        assert unbound.code == "unroutable"  # the exchange exists, no binding for the key
        await prepare(rabbit.url, exchange=name, queue=f"{name}.q", routing_key="orders")
        msg = message_for(dest)
        accepted = await pubs.publish(dest, msg, creds)
        assert accepted.ok, accepted.code
        channel = await conn.channel()
        queue = await channel.get_queue(f"{name}.q")
        got = await queue.get(timeout=5)
        assert got.message_id == msg.message_id
        await got.ack()
    finally:
        channel = await conn.channel()
        await channel.queue_delete(f"{name}.q")
        await channel.exchange_delete(name)
        await conn.close()


async def test_the_jetstream_setup_makes_a_publish_accepted(
    nats_server: EmbeddedNats, make_publishers: Any
) -> None:
    prepare = snippet()["prepare_jetstream"]
    tag = secrets.token_hex(3)
    dest, _ = parse_destination(
        {
            "type": "nats",
            "url": nats_server.url,
            "subject": f"st{tag}.created",
            "stream": f"ST{tag}",
        },
        allow_pairs=[(nats_server.host, nats_server.port)],
    )
    pubs = make_publishers((nats_server.host, nats_server.port))
    before = await pubs.publish(dest, message_for(dest))
    assert before.code == "jetstream_no_stream"
    await prepare(nats_server.url, stream=f"ST{tag}", subjects=(f"st{tag}.>",))
    after = await pubs.publish(dest, message_for(dest))
    assert after.ok, after.code
    nc = await nats.connect(nats_server.url, allow_reconnect=False)
    try:
        info = await nc.jetstream().stream_info(f"ST{tag}")
        assert info.state.messages == 1
    finally:
        await nc.close()
