"""The SDK examples' message handlers, run against real brokers: a message published by the
engine's publisher is verified and applied once; a message for another destination refused."""

from __future__ import annotations

import importlib.util
import secrets
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import aio_pika
import nats
import pytest

from hookproof.engine.cli.embedded_nats import EmbeddedNats
from hookproof.engine.destinations.brokers.spec import parse_destination
from hookproof_subscriber import StaticKeyResolver

from .conftest import ENGINE_KEY, Rabbit, message_for

EXAMPLES = Path(__file__).resolve().parents[2] / "subscriber" / "examples"
KEYS = StaticKeyResolver([ENGINE_KEY.verification_key()])


def load(name: str, destination: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.setenv("DESTINATION_URI", destination)
    monkeypatch.setenv("RETRY_DELAY", "0.2")
    spec = importlib.util.spec_from_file_location(
        f"example_{name}_{secrets.token_hex(3)}", EXAMPLES / f"{name}.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


async def test_aio_pika_example_verifies_and_applies_once(
    rabbit: Rabbit,
    make_publishers: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    name = f"hp-example-{secrets.token_hex(4)}"
    conn = await aio_pika.connect(rabbit.url)
    ch = await conn.channel()
    ex = await ch.declare_exchange(name, aio_pika.ExchangeType.DIRECT, durable=True)
    queue = await ch.declare_queue(f"{name}.q", durable=True)
    await queue.bind(ex, "k")
    try:
        dest, creds = rabbit.destination(name, "k")
        example = load("aio_pika_consumer", dest.uri, monkeypatch)
        pubs = make_publishers((rabbit.host, rabbit.port))
        msg = message_for(dest)
        assert (await pubs.publish(dest, msg, creds)).ok
        assert (await pubs.publish(dest, msg, creds)).ok  # a retry: the same ids
        for _ in range(2):
            incoming = await queue.get(timeout=5)
            await example.handle(incoming, KEYS)
        out = capsys.readouterr().out
        assert out.count("apply ") == 1, out
        # a message for another destination is refused, never applied
        other, _ = rabbit.destination(name, "other-key")
        bad = message_for(other)
        assert (await pubs.publish(dest, bad, creds)).ok
        await example.handle(await queue.get(timeout=5), KEYS)
        assert "refused bad_signature" in capsys.readouterr().out
    finally:
        await queue.delete(if_unused=False, if_empty=False)
        await ex.delete()
        await conn.close()


async def test_nats_example_verifies_and_applies(
    nats_server: EmbeddedNats,
    make_publishers: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    tag = secrets.token_hex(3)
    nc = await nats.connect(nats_server.url, allow_reconnect=False)
    js = nc.jetstream()
    await js.add_stream(name=f"EX{tag}", subjects=[f"ex{tag}.>"])
    try:
        dest, _ = parse_destination(
            {"type": "nats", "url": nats_server.url, "subject": f"ex{tag}.e", "stream": f"EX{tag}"},
            allow_pairs=[(nats_server.host, nats_server.port)],
        )
        example = load("nats_consumer", dest.uri, monkeypatch)
        pubs = make_publishers((nats_server.host, nats_server.port))
        assert (await pubs.publish(dest, message_for(dest))).ok
        sub = await js.pull_subscribe(f"ex{tag}.e", durable=f"c{tag}", stream=f"EX{tag}")
        (msg,) = await sub.fetch(1, timeout=5)
        await example.handle(msg, KEYS)
        assert capsys.readouterr().out.count("apply ") == 1
    finally:
        await nc.close()
