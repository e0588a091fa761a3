"""The broker destinations (DESIGN.md section 13): a signed message published to RabbitMQ or
NATS JetStream, the broker's own confirmation as the evidence.

One :class:`BrokerDestination` beside the HTTPS one, registered per broker kind at the
composition root; the dispatcher does not know it. For each attempt it finds the destination
the attempt's generation bound (the current one from the subscription, an older draining one
from the stream's history: an old generation never reaches a new destination), opens the
sealed credentials, signs the message in its broker form (``"@destination"``) with exactly the
signers the admission recorded, publishes, and turns the broker's answer into
:class:`~.destination.Evidence` (:func:`evidence_of_broker`, pure). An attempt of the current
generation publishes with the address set its challenge pinned, and what the publish saw goes
to the drift guard as an HTTPS post's result does (a rebinding into a denied range or a moved
broker suspends the subscription before anything is sent).
"""

from __future__ import annotations

from typing import Final

import structlog

from hookproof.config import Settings
from hookproof.events.subscription_events import (
    DestinationConfig,
    SubscriptionRegistered,
    SubscriptionUpdated,
    subscription_stream_id,
)
from hookproof.projections.subscriptions import SubscriptionState

from ...common.memo import BoundedMemo
from ...egress.failures import FailureCode, Outcome
from ...egress.transport import EgressPolicy
from ..context import DriftWatch, SubscriptionStates, Target
from ..port import Evidence, SignedMessage
from .binding import destination_of
from .credentials import DestinationCredentials
from .evidence import BrokerEvidence, BrokerOutcome
from .message import BrokerMessage, build_message
from .publishers import BrokerPublishers
from .spec import BrokerCredentials, Destination

__all__ = ["BrokerDestination", "evidence_of_broker"]

log = structlog.get_logger("hookproof.destinations")

_OUTCOMES: Final = {
    BrokerOutcome.ACCEPTED: Outcome.RESPONSE,
    BrokerOutcome.REJECTED: Outcome.RESPONSE,  # the broker answered: not taken
    BrokerOutcome.REFUSED: Outcome.REFUSED,
    BrokerOutcome.NOT_SENT: Outcome.NOT_SENT,
    BrokerOutcome.UNKNOWN: Outcome.UNKNOWN,
}
_MEMO: Final = 2_048


def evidence_of_broker(found: BrokerEvidence) -> Evidence:
    """What the ledger records of one publish: acceptance only on the broker's confirmation;
    a rejection is the broker's answer (RETRYABLE), a lost confirmation UNKNOWN_TRANSPORT."""
    code: FailureCode | str | None = found.code
    if code is not None:
        try:
            code = FailureCode(code)
        except ValueError:
            pass
    return Evidence(
        outcome=_OUTCOMES[found.outcome],
        code=None if found.ok else (code or "broker_failed"),
        request_written=found.published,
        peer_address=found.peer_address,
        spki_sha256=found.certificate.spki_sha256 if found.certificate else None,
        broker=found.evidence(),
    )


class BrokerDestination:
    """:class:`~.destination.Destination` for the ``amqp`` and ``nats`` kinds."""

    def __init__(
        self,
        publishers: BrokerPublishers,
        subscriptions: SubscriptionStates,
        credentials: DestinationCredentials,
    ) -> None:
        self.publishers = publishers
        self.subscriptions = subscriptions
        self.credentials = credentials
        #: judges each current-generation publish against the challenge's pin (set by the
        #: composition root: :meth:`watch_drift`)
        self.guard: DriftWatch | None = None
        # a generation's binding never changes: (subscription, generation) -> its destination
        self._bound: BoundedMemo[tuple[str, int], tuple[DestinationConfig, Destination]] = (
            BoundedMemo(_MEMO)
        )
        self._states: BoundedMemo[str, SubscriptionState | None] = BoundedMemo(_MEMO)
        self._opened: BoundedMemo[str, BrokerCredentials] = BoundedMemo(_MEMO)

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        subscriptions: SubscriptionStates,
        credentials: DestinationCredentials,
    ) -> BrokerDestination:
        """Vetting and pools by the egress's rules (the composition root builds it once)."""
        publishers = BrokerPublishers.from_policy(EgressPolicy.from_settings(settings))
        return cls(publishers, subscriptions, credentials)

    def watch_drift(self, guard: DriftWatch) -> None:
        """Send what each current-generation publish saw to *guard* (the delivery path's)."""
        self.guard = guard

    async def close(self) -> None:
        await self.publishers.close()

    async def _state(self, row: Target) -> SubscriptionState | None:
        state = self._states.get(row.subscription_id)
        if state is None or state.version != row.sub_version:
            state = await self.subscriptions.load(row.subscription_id)
            self._states.put(row.subscription_id, state)
        return state

    async def _binding(self, row: Target) -> tuple[DestinationConfig, Destination] | None:
        """The destination the attempt's own generation bound (never a newer one), and the
        :class:`Destination` the publishers take (made once per generation)."""
        key = (row.subscription_id, row.generation)
        cached = self._bound.get(key)
        if cached is not None:
            return cached
        found: DestinationConfig | None = None
        stream = subscription_stream_id(row.subscription_id)
        history = await self.subscriptions.store.read_stream(stream)
        for rec in history:
            ev = rec.decode()
            if isinstance(ev, SubscriptionRegistered | SubscriptionUpdated) and (
                ev.generation == row.generation
            ):
                found = ev.config.destination
        # only the destination whose URI the delivery was planned for may carry it
        if found is not None and (found.is_relay or found.uri != row.endpoint):
            found = None
        if found is None:
            return None
        bound = (found, destination_of(found))
        self._bound.put(key, bound)
        return bound

    async def _open(self, cfg: DestinationConfig) -> BrokerCredentials | None:
        if cfg.credentials_id is None:
            return None
        opened = self._opened.get(cfg.credentials_id)
        if opened is None:
            opened = await self.credentials.open(cfg.credentials_id)
            self._opened.put(cfg.credentials_id, opened)
        return opened

    async def publish_to(self, cfg: DestinationConfig, message: BrokerMessage) -> BrokerEvidence:
        """Publish *message* (a challenge) to the destination *cfg* binds."""
        return await self.publishers.publish(
            destination_of(cfg),
            message,
            await self._open(cfg),
            credentials_digest=cfg.credentials_digest,
        )

    async def deliver(self, message: SignedMessage, target: Target) -> Evidence:
        bound = await self._binding(target)
        if bound is None:  # no broker bound to this generation at this URI: nothing is sent
            return Evidence(outcome=Outcome.REFUSED, code=FailureCode.REFUSED_SCHEME)
        cfg, dest = bound
        pinned: tuple[str, ...] | None = None
        state: SubscriptionState | None = None
        if target.generation == target.sub_generation:
            state = await self._state(target)
            if (
                state is not None
                and state.verified_generation == target.generation
                and state.pinned_addresses
            ):
                pinned = state.pinned_addresses
        headers = {k.lower(): v for k, v in message.headers.items()}
        broker_message = build_message(
            dest.uri,
            message.body,
            event_id=target.event_id,
            delivery_id=target.delivery_id,
            subscription_id=target.subscription_id,
            generation=target.generation,
            attempt=int(headers.get("webhook-attempt", "1")),
            signers=message.signers,
            created=message.created,
            lifetime=message.lifetime,
            traceparent=headers.get("traceparent", "00-" + "0" * 32 + "-" + "0" * 16 + "-01"),
        )
        credentials = await self._open(cfg)
        found = await self.publishers.publish(
            dest,
            broker_message,
            credentials,
            credentials_digest=cfg.credentials_digest,
            pinned=pinned,
            owner=target.tenant_id,
        )
        if not found.ok:
            log.info(
                "broker_publish_failed",
                delivery_id=target.delivery_id,
                subscription_id=target.subscription_id,
                type=cfg.type,
                outcome=found.outcome.value,
                code=found.code,
                detail=found.detail[:200],
            )
        if self.guard is not None and state is not None and state.generation == target.generation:
            await self.guard.observe(state, found)
        return evidence_of_broker(found)
