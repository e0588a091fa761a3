"""What the engine hands a destination kind (DESIGN.md section 15): the attempt's target as a
kind reads it, and the engine-owned parts a kind's adapter factory is given
(:class:`KindContext`). Protocols only, so the wing imports nothing of the folders that use
it (delivery, challenge, subscriptions, relay): the composition root passes the real parts."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from hookproof.config import Settings
from hookproof.events import EventStore
from hookproof.projections.subscriptions import SubscriptionState

from ..common.clock import Clock
from ..egress import EgressResult, EgressTransport
from ..egress.identity import ClientIdentity
from ..egress.transport import EgressPolicy
from .connect import VettedConnector

__all__ = [
    "DriftWatch",
    "KindContext",
    "KindSecrets",
    "SubscriptionStates",
    "Target",
]


class Target(Protocol):
    """The attempt as a destination reads it (the dispatcher's claimed row)."""

    @property
    def delivery_id(self) -> str: ...
    @property
    def event_id(self) -> str: ...
    @property
    def tenant_id(self) -> str: ...
    @property
    def subscription_id(self) -> str: ...
    @property
    def generation(self) -> int: ...
    @property
    def endpoint(self) -> str: ...
    @property
    def endpoint_digest(self) -> str: ...
    @property
    def attempt(self) -> int: ...
    @property
    def sub_generation(self) -> int: ...
    @property
    def sub_version(self) -> int: ...


class SubscriptionStates(Protocol):
    """A subscription's state now and its stream (for the generation an attempt bound)."""

    @property
    def store(self) -> EventStore: ...
    async def load(self, subscription_id: str) -> SubscriptionState | None: ...


class DriftWatch(Protocol):
    """The drift guard (DESIGN.md 5): posts with the challenge's pin and judges what any
    connection of the current generation saw."""

    async def post(
        self,
        state: SubscriptionState,
        url: str,
        body: bytes,
        headers: Mapping[str, str] | Iterable[tuple[str, str]] | None = None,
        *,
        identity: ClientIdentity | None = None,
    ) -> EgressResult: ...

    async def observe(self, state: SubscriptionState, result: Any) -> None: ...


class KindSecrets(Protocol):
    """The write-only ``destination`` members of an attempt's subscription, opened."""

    async def of(self, target: Target) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class KindContext:
    """What the engine owns and a kind's adapter may use: the vetted egress (``transport``
    for HTTP, ``connect`` for any other protocol, ``policy``: the same address rules and
    allow-list as an endpoint), the subscriptions' states, the drift guard, the settings and
    the clock, the kind's sealed write-only members (``secrets``). ``parts`` carries engine
    features a built-in kind serves (``"endpoint_auth"``, ``"relay_hub"``,
    ``"broker_credentials"``), by name; a kind that needs one the engine lacks builds no
    adapter."""

    settings: Settings
    clock: Clock
    transport: EgressTransport
    policy: EgressPolicy
    connect: VettedConnector
    subscriptions: SubscriptionStates
    drift: DriftWatch
    parts: Mapping[str, Any]
    #: ``secrets.of(target)``: the write-only members of the attempt's subscription's
    #: ``destination``, opened (``.sealed.SealedMembers``); never log or record them
    secrets: KindSecrets | None = None
