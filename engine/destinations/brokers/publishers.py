"""Both broker publishers over one :class:`~.net.BrokerNet` (DESIGN.md section 13):
``publish`` picks the kind's publisher by the destination's type."""

from __future__ import annotations

from collections.abc import Iterable

from ...egress.transport import EgressPolicy
from ..amqp.publisher import AmqpPublisher
from ..nats.publisher import NatsPublisher
from .evidence import BrokerEvidence
from .message import BrokerMessage
from .net import BrokerNet
from .pool import BrokerPoolLimits
from .spec import BrokerCredentials, Destination

__all__ = ["BrokerPublishers"]


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
