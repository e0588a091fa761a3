"""The composition root's delivery steps (:mod:`.composition` runs them): the destination
port with its kinds, and the delivery part (ingest, the ledger's reads, the dispatcher and
its metrics, notifications, recovery). Each step builds one part from the parts before it
and sets nothing on a part afterwards."""

from __future__ import annotations

from dataclasses import dataclass

import asyncpg

from hookproof.config import Settings
from hookproof.events import EventStore

from ..challenge.drift import DriftGuard
from ..common.clock import Clock
from ..delivery.dispatcher import Dispatcher
from ..delivery.gates import EndpointGates
from ..delivery.recover import Recovery
from ..delivery.repository import DeliveryRepository
from ..delivery.views import DeliveryReader
from ..destinations.brokers.adapter import BrokerDestination
from ..destinations.connect import VettedConnector
from ..destinations.context import KindContext
from ..destinations.port import Destination
from ..destinations.registry import installed
from ..destinations.sealed import SealedMembers
from ..egress import EgressTransport
from ..egress.transport import EgressPolicy
from ..endpoint_auth import EndpointAuth
from ..event_types.gate import SchemaGate
from ..event_types.offload import SchemaValidator
from ..event_types.repository import EventTypeRepository
from ..event_types.service import EventTypeService
from ..ingest.ingest import IngestService
from ..keys import KeyRing
from ..keys.signers import AttemptSigningKeys
from ..notifications import Notifier
from ..observe import tracing
from ..observe.metrics import EngineMetrics
from ..relay.hub import RelayHub
from ..rollouts.service import RolloutService
from ..subscriptions import SubscriptionService
from ..subscriptions.gone import SuspendOnGone
from .options import EngineOptions

__all__ = ["Delivery", "construct_delivery", "construct_destination", "construct_recovery"]


def construct_destination(
    transport: EgressTransport,
    guard: DriftGuard,
    subscriptions: SubscriptionService,
    options: EngineOptions,
    brokers: BrokerDestination,
    relay: RelayHub | None = None,
    endpoint_auth: EndpointAuth | None = None,
    *,
    settings: Settings,
) -> Destination:
    """Where the dispatcher's attempts go: one adapter per installed kind (the registry's
    ``hookproof.destinations`` entry points, DESIGN.md 15), each built from what the engine
    owns (the pinned egress and its policy, the drift guard, the subscriptions, and the
    parts a built-in kind serves: the endpoint auth, the relay hub, the broker destination);
    traced per attempt."""
    brokers.watch_drift(guard)  # a broker's drift is judged as an endpoint's
    parts: dict[str, object] = {"brokers": brokers}
    if relay is not None:
        parts["relay_hub"] = relay
    if endpoint_auth is not None:
        parts["endpoint_auth"] = endpoint_auth
    context = KindContext(
        settings=settings,
        clock=options.clock,
        transport=transport,
        policy=EgressPolicy.from_settings(settings),
        connect=VettedConnector(brokers.publishers.net),
        subscriptions=subscriptions,
        drift=guard,
        parts=parts,
        secrets=SealedMembers(subscriptions, brokers.credentials),
    )
    destination: Destination = installed().build(context)
    if options.wrap_destination is not None:
        destination = options.wrap_destination(destination)
    return tracing.TracedDestination(destination, options.attempt_tracer)


@dataclass(frozen=True, slots=True)
class Delivery:
    """The delivery path's parts (:func:`construct_delivery`)."""

    event_types: EventTypeService
    #: payloads and examples too dear to validate on the loop go to one validation process
    validator: SchemaValidator
    ingest: IngestService
    reader: DeliveryReader
    deliveries: DeliveryRepository
    drift_guard: DriftGuard
    destination: Destination
    metrics: EngineMetrics
    dispatcher: Dispatcher
    notifier: Notifier
    recovery: Recovery


def construct_delivery(
    pool: asyncpg.Pool,
    store: EventStore,
    settings: Settings,
    *,
    subscriptions: SubscriptionService,
    keyring: KeyRing,
    transport: EgressTransport,
    rollouts: RolloutService,
    options: EngineOptions,
    brokers: BrokerDestination,
    relay: RelayHub | None = None,
    endpoint_auth: EndpointAuth | None = None,
) -> Delivery:
    """Ingest, the ledger's reads, the destination, the dispatcher and its metrics, the
    engine's notifications and recovery."""
    clock = options.clock
    validator = SchemaValidator(deadline_s=settings.schema_deadline_s)
    event_types = EventTypeService(store, clock=clock, validator=validator)
    ingest = IngestService(
        store,
        clock=clock,
        group_window_s=max(0.0, settings.ingest_group_window_s),
        max_group=settings.ingest_group_max,
        max_inflight=settings.ingest_group_inflight,
        gate=SchemaGate(EventTypeRepository.of(store), validator=validator),
    )
    deliveries = DeliveryRepository(pool)
    guard = DriftGuard(store, subscriptions, transport, clock=clock)
    destination = construct_destination(
        transport,
        guard,
        subscriptions,
        options,
        brokers=brokers,
        relay=relay,
        endpoint_auth=endpoint_auth,
        settings=settings,
    )
    # the breakers the metrics report, built before both
    gates = EndpointGates(open_seconds=settings.breaker_open_s)
    metrics = EngineMetrics(breaker_states=gates.states)
    dispatcher = Dispatcher(
        store,
        settings,
        key_provider=AttemptSigningKeys(keyring),
        destination=destination,
        on_gone=SuspendOnGone(subscriptions),
        clock=clock,
        lease_margin_s=settings.lease_margin_s,
        rollouts=rollouts,
        key_by_id=keyring.challenge_key,
        deliveries=deliveries,
        metrics=metrics,
        gates=gates,
        kinds=installed(),
    )
    return Delivery(
        event_types=event_types,
        validator=validator,
        ingest=ingest,
        reader=DeliveryReader(store, deliveries),
        deliveries=deliveries,
        drift_guard=guard,
        destination=destination,
        metrics=metrics,
        dispatcher=dispatcher,
        notifier=Notifier(store, ingest),
        recovery=construct_recovery(store, subscriptions, clock),
    )


def construct_recovery(
    store: EventStore, subscriptions: SubscriptionService, clock: Clock
) -> Recovery:
    """Bringing a window of failed deliveries back (the API's and the CLI's ``recover``)."""
    return Recovery(store, subscriptions, clock=clock)
