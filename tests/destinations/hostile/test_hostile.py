"""Every destination kind against its hostile fake broker (the kit: :mod:`.kinds`), through the
real publishers, guarded sockets and pools: each handshake step that hangs ends in
``broker_handshake_timeout`` within its deadline, a confirmation late or never in
``confirm_timeout``, a close between publish and confirmation in ``connection_lost``, endless
small frames in ``broker_budget_exceeded``; a frame announced as 1.5 GB (96 MB of it sent) in
``broker_frame_too_large`` on its header, with this process's RSS within 50 MB of before; and
a broker that comes back to good behaviour is published to again (nothing is left wedged);
an idle pooled connection is closed without a publish coming; with the egress proxy set, a
broker is reached through it."""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import AsyncIterator
from pathlib import Path

import psutil
import pytest

from hookproof.engine.destinations.brokers.bounds import BrokerLimits
from hookproof.engine.destinations.brokers.evidence import BrokerOutcome
from hookproof.engine.destinations.brokers.net import BrokerNet
from hookproof.engine.destinations.brokers.pool import BrokerPoolLimits
from hookproof.engine.destinations.brokers.publishers import BrokerPublishers
from hookproof.engine.destinations.brokers.spec import parse_destination
from hookproof.engine.egress.proxy import parse_proxy
from tests.challenge.test_egress_proxy import Tinyproxy, _start

from ..conftest import allow, message_for
from .amqp import FakeAmqp
from .base import FakeServer
from .kinds import KINDS, HostileKind

HANDSHAKE_S = 0.5
CONFIRM_S = 1.0
#: what the deadline may be late by on this shared 2-core machine
SLACK_S = 1.5
RSS_SLACK = 50 * 1024 * 1024

CASES = [(kind, mode) for kind in KINDS for mode in kind.misbehaviours]


@pytest.fixture
async def fake(request: pytest.FixtureRequest) -> AsyncIterator[FakeServer]:
    kind: HostileKind = request.param
    server = kind.make()
    await server.start()
    yield server
    await server.close()


def publishers(
    port: int, pool: BrokerPoolLimits | None = None, proxy: str | None = None
) -> BrokerPublishers:
    limits = BrokerLimits(handshake_s=HANDSHAKE_S, tls_handshake_s=HANDSHAKE_S)
    policy = allow(("127.0.0.1", port), proxy=parse_proxy(proxy) if proxy else None)
    net = BrokerNet.from_policy(policy, limits)
    return BrokerPublishers(net, timeout_s=CONFIRM_S, limits=pool)


async def publish(kind: HostileKind, pubs: BrokerPublishers, port: int, name: str) -> object:
    dest, creds = parse_destination(kind.destination(port, name), allow_pairs=[("127.0.0.1", port)])
    return await pubs.publish(dest, message_for(dest), creds)


@pytest.mark.parametrize(
    ("fake", "kind", "mode"),
    [(k, k, m) for k, m in CASES],
    ids=[f"{k.name}-{m}" for k, m in CASES],
    indirect=["fake"],
)
async def test_each_misbehaviour_is_typed_and_timely(
    fake: FakeServer, kind: HostileKind, mode: str
) -> None:
    want = kind.misbehaviours[mode]
    pubs = publishers(fake.port)
    try:
        fake.mode = mode
        started = time.monotonic()
        found = await publish(kind, pubs, fake.port, "h1")
        took = time.monotonic() - started
        assert found.code == want.code, (mode, found.code, found.detail)  # type: ignore[attr-defined]
        assert found.outcome is BrokerOutcome(want.outcome), found.outcome  # type: ignore[attr-defined]
        bound = {"handshake": HANDSHAKE_S, "confirm": CONFIRM_S, "none": 0.0}[want.deadline]
        assert took < bound + SLACK_S, (mode, took)
        if want.deadline != "none":
            assert took >= bound * 0.9, (mode, took)  # it did wait for the deadline
        # the connection is gone: a good broker is published to again, at once
        fake.mode = "good"
        again = await publish(kind, pubs, fake.port, "h1")
        assert again.ok, (mode, again.code, again.detail)  # type: ignore[attr-defined]
    finally:
        await pubs.close()


GIANT = [(kind, mode) for kind in KINDS for mode in kind.giant]


@pytest.mark.parametrize(
    ("fake", "kind", "mode"),
    [(k, k, m) for k, m in GIANT],
    ids=[f"{k.name}-{m}" for k, m in GIANT],
    indirect=["fake"],
)
async def test_giant_frame_leaves_memory_as_it_was(
    fake: FakeServer, kind: HostileKind, mode: str
) -> None:
    warming = publishers(fake.port)  # the libraries loaded, one exchange made, then closed
    try:
        warm = await publish(kind, warming, fake.port, "warm")
        assert warm.ok, warm.detail  # type: ignore[attr-defined]
    finally:
        await warming.close()
    pubs = publishers(fake.port)
    me = psutil.Process()
    try:
        gc.collect()
        before = me.memory_info().rss
        fake.mode = mode
        found = await publish(kind, pubs, fake.port, "giant")
        gc.collect()
        after = me.memory_info().rss
        assert found.code == "broker_frame_too_large", found.detail  # type: ignore[attr-defined]
        assert after - before < RSS_SLACK, (before, after)
    finally:
        await pubs.close()


@pytest.mark.parametrize("fake", KINDS, ids=[k.name for k in KINDS], indirect=True)
async def test_idle_connection_closed(fake: FakeServer, request: pytest.FixtureRequest) -> None:
    """A pooled connection no publish takes is closed in the background (the broker sees it
    go), not only when a publish next looks at it."""
    kind = next(k for k in KINDS if k.name == request.node.callspec.id)
    pubs = publishers(fake.port, BrokerPoolLimits(idle_s=0.2))
    try:
        found = await publish(kind, pubs, fake.port, "idle")
        assert found.ok, found.detail  # type: ignore[attr-defined]
        assert fake.open_sessions == 1
        async with asyncio.timeout(5):
            await fake.none_open.wait()
    finally:
        await pubs.close()


@pytest.fixture
async def tinyproxy(tmp_path: Path) -> AsyncIterator[Tinyproxy]:
    async for proxy in _start(tmp_path):
        yield proxy


@pytest.mark.parametrize("fake", KINDS, ids=[k.name for k in KINDS], indirect=True)
async def test_brokers_honour_the_egress_proxy(
    fake: FakeServer, tinyproxy: Tinyproxy, request: pytest.FixtureRequest
) -> None:
    """With ``HOOKPROOF_EGRESS_PROXY`` a broker is reached as ``CONNECT <vetted address>:<port>``
    through the operator's proxy (tinyproxy), and the publish is confirmed through it."""
    kind = next(k for k in KINDS if k.name == request.node.callspec.id)
    pubs = publishers(fake.port, proxy=tinyproxy.url)
    try:
        found = await publish(kind, pubs, fake.port, "proxied")
        assert found.ok, found.detail  # type: ignore[attr-defined]
        assert found.peer_address == "127.0.0.1"  # type: ignore[attr-defined]
        assert tinyproxy.requests() == [f"CONNECT 127.0.0.1:{fake.port} HTTP/1.1"]
    finally:
        await pubs.close()


@pytest.mark.parametrize("fake", KINDS, ids=[k.name for k in KINDS], indirect=True)
async def test_tenants_never_share_a_connection(
    fake: FakeServer, request: pytest.FixtureRequest
) -> None:
    """Two tenants publishing to the same broker with the same (no) credentials get a
    connection each: a destination of one that breaks its connection (a channel that hangs)
    never takes the other's publishes with it."""
    kind = next(k for k in KINDS if k.name == request.node.callspec.id)
    pubs = publishers(fake.port)
    try:
        dest, creds = parse_destination(
            kind.destination(fake.port, "shared"), allow_pairs=[("127.0.0.1", fake.port)]
        )
        for owner in ("tenant-a", "tenant-a", "tenant-b"):
            found = await pubs.publish(dest, message_for(dest), creds, owner=owner)
            assert found.ok, found.detail
        assert fake.connections == 2
    finally:
        await pubs.close()


@pytest.mark.parametrize("fake", KINDS, ids=[k.name for k in KINDS], indirect=True)
async def test_tls_handshake_that_hangs_is_typed_and_timely(
    fake: FakeServer, request: pytest.FixtureRequest
) -> None:
    """A broker that takes the TCP connection and never answers the ClientHello:
    ``tls_handshake_timeout`` within the TLS deadline, nothing sent."""
    kind = next(k for k in KINDS if k.name == request.node.callspec.id)
    fake.mode = kind.silent
    pubs = publishers(fake.port)
    try:
        dest, creds = parse_destination(
            kind.tls_destination(fake.port, "tls"), allow_pairs=[("127.0.0.1", fake.port)]
        )
        started = time.monotonic()
        found = await pubs.publish(dest, message_for(dest), creds)
        took = time.monotonic() - started
        assert found.code == "tls_handshake_timeout", found.detail
        assert found.outcome is BrokerOutcome.NOT_SENT
        assert HANDSHAKE_S * 0.9 <= took < HANDSHAKE_S + SLACK_S, took
    finally:
        await pubs.close()


@pytest.mark.parametrize("fake", [KINDS[0]], ids=["amqp"], indirect=True)
@pytest.mark.parametrize("proposed", [0, 1_048_576, 65_536])
async def test_amqp_frame_max_is_negotiated_down_to_ours(fake: FakeServer, proposed: int) -> None:
    """Whatever the broker proposes in Connection.Tune (0: no limit), the engine answers
    Tune-Ok with at most its own frame_max (128 KiB), and publishes fine."""
    assert isinstance(fake, FakeAmqp)
    fake.propose_frame_max = proposed
    pubs = publishers(fake.port)
    try:
        found = await publish(KINDS[0], pubs, fake.port, "tune")
        assert found.ok, found.detail  # type: ignore[attr-defined]
        assert fake.negotiated == (proposed if 0 < proposed <= 131_072 else 131_072)
    finally:
        await pubs.close()
