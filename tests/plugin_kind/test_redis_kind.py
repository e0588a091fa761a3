"""A kind installed from outside hookproof (``tests/plugin_kind``: one module, one entry-point
line, no hookproof file naming it) is in the registry, built by the composition root through
the kind context, chosen by its endpoint and delivers to a real Redis over the engine's
vetted connection; without an exact allowance the loopback address is refused before any
socket."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import pytest

from hookproof.config import Settings
from hookproof.engine.cli import main
from hookproof.engine.destinations.port import SignedMessage
from hookproof.engine.destinations.registry import installed
from hookproof.engine.egress.failures import Outcome
from tests.destinations.engine_support import started

REDIS = ("127.0.0.1", 6379)  # the Redis the delivery goes to (a service on this machine)
ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Attempt:
    """The attempt as a destination reads it (``destinations.context.Target``)."""

    endpoint: str
    delivery_id: str = "dlv_1"
    event_id: str = "evt_1"
    tenant_id: str = "ten_1"
    subscription_id: str = "sub_1"
    generation: int = 1
    attempt: int = 0
    sub_generation: int = 1
    sub_version: int = 1
    endpoint_digest: str = "d"


async def redis(*parts: bytes) -> bytes:
    """One command to the local Redis, its raw reply (read until quiet)."""
    reader, writer = await asyncio.open_connection(*REDIS)
    try:
        out = [b"*%d\r\n" % len(parts)] + [b"$%d\r\n%s\r\n" % (len(p), p) for p in parts]
        writer.write(b"".join(out))
        await writer.drain()
        data = await asyncio.wait_for(reader.read(65536), 5)
        while True:
            try:
                data += await asyncio.wait_for(reader.read(65536), 0.2)
            except TimeoutError:
                return data
    finally:
        writer.close()


@pytest.fixture
async def redis_up() -> None:
    """Redis answers on 127.0.0.1:6379; else the delivery tests skip, saying why, unless
    ``HOOKPROOF_REQUIRE_REDIS`` is set (``.ci/run``: there they must run)."""
    try:
        assert await redis(b"PING") == b"+PONG\r\n"
    except (OSError, AssertionError, TimeoutError) as exc:
        reason = f"no Redis at 127.0.0.1:6379 ({type(exc).__name__})"
        if os.environ.get("HOOKPROOF_REQUIRE_REDIS"):
            pytest.fail(reason + " and HOOKPROOF_REQUIRE_REDIS is set")
        pytest.skip(reason)


def test_the_kind_registers_from_its_own_package() -> None:
    registry = installed()
    kind = registry.get("redis")
    assert kind is not None and kind.evidence == ("redis_entry_id",)
    assert registry.kind_of("redis://127.0.0.1:6379/orders") is kind
    assert not registry.signs_own_form("redis://127.0.0.1:6379/orders")
    # no product file of hookproof names it
    named = [
        p
        for folder in ("engine", "hookproof", "schemas", "events", "projections")
        for p in (ROOT / folder).rglob("*.py")
        if "redis" in p.read_text().lower()
    ]
    assert named == []


def test_destinations_list_shows_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["destinations", "list", "--json"]) == 0
    kinds = {k["name"]: k for k in json.loads(capsys.readouterr().out)["kinds"]}
    assert [f["name"] for f in kinds["redis"]["fields"]] == ["url", "stream", "password"]


async def test_it_delivers_through_the_vetted_connection(
    pool: asyncpg.Pool, tmp_path: Path, redis_up: None
) -> None:
    stream = f"hookproof-test-{secrets.token_hex(4)}"
    settings = Settings(data_dir=tmp_path, egress_allow=(REDIS,))
    body = b'{"type":"order.created","data":{"n":1}}'
    try:
        async with started(pool, settings) as (engine, _api):
            destination = engine.services.destination
            evidence = await destination.deliver(
                SignedMessage(body, {"webhook-id": "evt_1"}),
                Attempt(endpoint=f"redis://127.0.0.1:6379/{stream}"),
            )
        assert evidence.ok and evidence.outcome is Outcome.RESPONSE, evidence
        assert evidence.peer_address == "127.0.0.1:6379"
        assert evidence.broker is not None
        entry = evidence.broker["redis"]["entryId"]
        stored = await redis(b"XRANGE", stream.encode(), b"-", b"+")
        assert entry.encode() in stored and body in stored
        assert b'"webhook-id": "evt_1"' in stored
    finally:
        await redis(b"DEL", stream.encode())


async def test_loopback_without_an_exact_allowance_is_refused(
    pool: asyncpg.Pool, tmp_path: Path, redis_up: None
) -> None:
    stream = f"hookproof-test-{secrets.token_hex(4)}"
    async with started(pool, Settings(data_dir=tmp_path)) as (engine, _api):
        evidence = await engine.services.destination.deliver(
            SignedMessage(b"{}", {}), Attempt(endpoint=f"redis://127.0.0.1:6379/{stream}")
        )
    assert not evidence.ok and evidence.outcome is Outcome.REFUSED, evidence
    assert evidence.code is not None and not evidence.request_written
    assert await redis(b"EXISTS", stream.encode()) == b":0\r\n"
