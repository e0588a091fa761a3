"""The composition root: the one place that builds hookproof's engine from :class:`Settings`.

:func:`build_engine` runs named, typed steps (after eventsourcing's ``construct_recorder`` /
``construct_event_store`` / ``construct_repository``): each ``construct_*`` builds one part
from the settings and the parts built before it, hands every dependency to a constructor and
sets nothing on a part afterwards. A cycle is broken by a small port built first (the portal's
session ends, the endpoint gates the metrics read). ``serve`` (:mod:`.daemon`), the CLI
(:class:`..cli.context.Context`) and the archive (:func:`construct_archiver`) use these steps
alike. The order and what each step takes: ``docs/composition.md``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import asyncpg
import structlog
from aiohttp import web

from hookproof.config import Settings
from hookproof.events import EventStore
from hookproof.projections.attempt_stats import AttemptStats

from ..api import ApiContext, create_app
from ..api.delivery import routes as delivery_routes
from ..api.event_types import routes as event_type_routes
from ..api.jwks import jwks_handler
from ..api.keys import routes as key_routes
from ..api.metrics import metrics_route
from ..api.receipts import routes as receipt_routes
from ..api.recover import routes as recover_routes
from ..api.rollouts import routes as rollout_routes
from ..archive import Archiver, SegmentArchive
from ..archive.repository import ArchiveRepository
from ..challenge import Challenger
from ..challenge.background import BackgroundChallenges
from ..challenge.drift import DriftGuard
from ..common.clock import Clock, system_clock
from ..consumers import ConsumerService
from ..db.migrate import migrate
from ..delivery.destination import HTTPS, Destination, DestinationsByKind
from ..delivery.dispatcher import Dispatcher
from ..delivery.gates import EndpointGates
from ..delivery.https import HttpsDestination
from ..delivery.recover import Recovery
from ..delivery.repository import DeliveryRepository
from ..delivery.views import DeliveryReader
from ..egress import EgressTransport
from ..event_types.gate import SchemaGate
from ..event_types.offload import SchemaValidator
from ..event_types.repository import EventTypeRepository
from ..event_types.service import EventTypeService
from ..ingest.ingest import IngestService
from ..keys import KeyRing
from ..keys.rotation import Rotation
from ..keys.rotation_repository import RotationRepository
from ..keys.signers import AttemptSigningKeys, ChallengeSigningKeys
from ..notifications import Notifier
from ..observe import tracing
from ..observe.metrics import EngineMetrics
from ..portal.repository import PortalRepository
from ..portal.service import PortalService, PortalSessionEnds
from ..portal.tenants import TenantService
from ..receipts.redeliver import ReceiptRedeliverer
from ..receipts.service import ReceiptMetrics, ReceiptService
from ..recording.projections_runner import ProjectorRole
from ..recording.registry import async_projections, inline_hooks
from ..rollouts.service import RolloutService
from ..subscriptions import SubscriptionService
from ..subscriptions.gone import SuspendOnGone
from .jobs import BackgroundJobs, Closer, Periodic, Worker
from .services import Services

__all__ = [
    "Engine",
    "EngineOptions",
    "build_engine",
    "construct_api",
    "construct_archiver",
    "construct_challenger",
    "construct_consumers",
    "construct_delivery",
    "construct_destination",
    "construct_egress",
    "construct_keyring",
    "construct_receipts",
    "construct_recovery",
    "construct_rollouts",
    "construct_rotation",
    "construct_routes",
    "construct_schema",
    "construct_store",
    "construct_subscriptions",
    "construct_tenants",
    "construct_tracing",
    "construct_workers",
]

log = structlog.get_logger("hookproof.composition")

#: how often the expiry worker looks for subscriptions past their ``expiresAt`` (seconds)
EXPIRY_INTERVAL_S = 5.0


@dataclass(frozen=True, slots=True)
class EngineOptions:
    """What a caller may choose beyond :class:`Settings` (tests, the demo, benchmarks).

    ``clock``: the engine's one clock. ``attempt_tracer``: the per-attempt tracer (None: the
    configured OpenTelemetry provider's, if any). ``wrap_destination``: a decorator around the
    destination the dispatcher sends through (e.g. a test that alters what is sent).
    """

    clock: Clock = system_clock
    attempt_tracer: tracing.AttemptTracer | None = None
    wrap_destination: Callable[[Destination], Destination] | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Engine:
    """Everything a running hookproof holds; built once by :func:`build_engine`, used by
    ``serve``, the demo and tests. Nothing in it is replaced after it is built."""

    settings: Settings
    pool: asyncpg.Pool
    store: EventStore
    tenants: TenantService
    subscriptions: SubscriptionService
    api: ApiContext
    services: Services
    workers: tuple[tuple[str, Worker], ...]
    extra_routes: tuple[web.RouteDef, ...]
    #: run last-first at close, after the settlers
    closers: tuple[Closer, ...]
    #: run once at close, after every writer of this process stopped, before the closers
    settlers: tuple[Closer, ...]
    roles: frozenset[str]
    jobs: BackgroundJobs
    clock: Clock

    def app(self) -> web.Application:
        return create_app(self.api, self.extra_routes)

    async def drain(self, wait_s: float = 30.0) -> None:
        """Wait for background jobs (tests and the demo use it for determinism)."""
        await self.jobs.drain(wait_s)

    async def close(self) -> None:
        await self.jobs.cancel()
        for settle in self.settlers:  # e.g. the projector reaches the committed head
            try:
                await settle()
            except Exception as exc:
                log.warning("settle_failed", error=type(exc).__name__)
        for closer in reversed(self.closers):
            try:
                await closer()
            except Exception as exc:
                log.warning("close_failed", error=type(exc).__name__)


# -- the steps --------------------------------------------------------------------------------


async def construct_schema(pool: asyncpg.Pool) -> None:
    """The database at the schema this build expects (every migration, once)."""
    async with pool.acquire() as conn:
        await migrate(conn)


def construct_store(pool: asyncpg.Pool, settings: Settings) -> EventStore:
    """The event store: inline projections from the registry, archived streams read back."""
    return EventStore(pool, inline=inline_hooks(), archive=SegmentArchive(settings.archive_dir))


def construct_tracing() -> Closer | None:
    """The OpenTelemetry provider ``HOOKPROOF_OTEL_EXPORTER`` asks for, and its flush at close
    (None: tracing is off, or a test installed its own provider)."""
    return tracing.shutdown_in_thread if tracing.configure_from_env() else None


def construct_keyring(
    pool: asyncpg.Pool, settings: Settings, store: EventStore, clock: Clock = system_clock
) -> KeyRing:
    return KeyRing(pool, settings, store=store, clock=clock)


def construct_tenants(
    store: EventStore, settings: Settings, clock: Clock = system_clock
) -> TenantService:
    return TenantService(store, cache_s=settings.token_cache_s, wall_clock=clock)


def construct_consumers(
    store: EventStore, settings: Settings, clock: Clock
) -> tuple[ConsumerService, PortalService]:
    """Consumers and their portal sessions; a disable ends the consumer's sessions in its own
    transaction through the sessions' port, built first."""
    repository = PortalRepository.of(store)
    ends = PortalSessionEnds(store, repository)
    consumers = ConsumerService(store, clock=clock, session_closer=ends)
    portal = PortalService(store, settings, consumers, clock=clock, repository=repository)
    return consumers, portal


def construct_subscriptions(
    store: EventStore,
    settings: Settings,
    *,
    keyring: KeyRing | None,
    consumers: ConsumerService | None,
    clock: Clock,
) -> SubscriptionService:
    return SubscriptionService(
        store, settings, secrets_issuer=keyring, consumers=consumers, clock=clock
    )


def construct_egress(settings: Settings) -> EgressTransport:
    """The pinned, SSRF-safe transport every byte to a subscriber goes through."""
    transport = EgressTransport.from_settings(settings)
    for address, port in settings.egress_allow:
        log.warning("egress_allowance_configured", address=address, port=port)
    return transport


def construct_challenger(
    store: EventStore,
    settings: Settings,
    subscriptions: SubscriptionService,
    transport: EgressTransport,
    keyring: KeyRing,
    clock: Clock,
) -> Challenger:
    return Challenger(
        store,
        subscriptions,
        transport,
        settings,
        signing_key_for=ChallengeSigningKeys(keyring),
        secret_for=keyring.secret_for,
        clock=clock,
    )


def construct_rollouts(
    store: EventStore,
    settings: Settings,
    keyring: KeyRing,
    subscriptions: SubscriptionService | None,
    clock: Clock,
) -> RolloutService:
    """Rollouts of a signing change (``subscriptions``: the profile write-back)."""
    return RolloutService(store, settings, ring=keyring, subscriptions=subscriptions, clock=clock)


def construct_rotation(
    pool: asyncpg.Pool,
    keyring: KeyRing,
    challenger: Challenger,
    subscriptions: SubscriptionService,
    rollouts: RolloutService,
) -> Rotation:
    return Rotation(keyring, challenger, subscriptions, RotationRepository(pool), rollouts=rollouts)


def construct_destination(
    transport: EgressTransport,
    guard: DriftGuard,
    subscriptions: SubscriptionService,
    options: EngineOptions,
) -> Destination:
    """Where the dispatcher's attempts go, by destination kind (HTTPS through the pinned
    egress is the one kind today; a broker kind joins the mapping here), traced per attempt."""
    https = HttpsDestination(transport, guard, subscriptions)
    destination: Destination = DestinationsByKind({HTTPS: https}, default=https)
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
    destination = construct_destination(transport, guard, subscriptions, options)
    gates = EndpointGates()  # the breakers the metrics report, built before both
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


def construct_receipts(
    store: EventStore, settings: Settings, metrics: EngineMetrics, clock: Clock
) -> tuple[ReceiptService, ReceiptRedeliverer]:
    """Application receipts and their redelivery on timeout (``engine/receipts``)."""
    service = ReceiptService(
        store, receipts_url=settings.receipts_url, clock=clock, metrics=ReceiptMetrics(metrics)
    )
    redeliverer = ReceiptRedeliverer(
        store,
        timeout_s=settings.receipt_timeout_s,
        max_redeliveries=settings.receipt_redeliveries,
        clock=clock,
    )
    return service, redeliverer


def construct_archiver(
    pool: asyncpg.Pool,
    settings: Settings,
    *,
    store: EventStore | None = None,
    keyring: KeyRing | None = None,
    clock: Clock = system_clock,
) -> Archiver:
    """An archiver over the engine's store and key ring (built here when not given: the CLI
    and tests run archival without a whole engine)."""
    store = store if store is not None else construct_store(pool, settings)
    keyring = keyring if keyring is not None else construct_keyring(pool, settings, store, clock)
    return Archiver(
        settings, repository=ArchiveRepository(pool), store=store, keys=keyring, clock=clock
    )


def construct_api(
    settings: Settings,
    store: EventStore,
    *,
    tenants: TenantService,
    subscriptions: SubscriptionService,
    consumers: ConsumerService,
    portal: PortalService,
    challenger: Challenger,
    rotation: Rotation,
    jobs: BackgroundJobs,
) -> ApiContext:
    """What request handlers share; a registration schedules its challenge in the background,
    ``POST .../challenge`` runs one now (through rotation: it proves a pending secret)."""
    return ApiContext(
        settings=settings,
        store=store,
        tenants=tenants,
        subscriptions=subscriptions,
        on_registered=BackgroundChallenges(challenger, jobs),
        on_challenge=rotation.challenge_subscription,
        consumers=consumers,
        portal=portal,
    )


def construct_routes(
    services: Services, deliveries: DeliveryRepository
) -> tuple[web.RouteDef, ...]:
    """The parts' routes beside the API's own (``create_app``), in this order."""
    return (
        *rollout_routes(services.rollouts),
        *event_type_routes(services.event_types),
        metrics_route(services.metrics, deliveries),
        *delivery_routes(services.ingest, services.reader),
        *recover_routes(services.recovery),
        *key_routes(services.rotation),
        *receipt_routes(services.receipts),
        # the ring's JWKS, with rollout targets
        web.get(
            "/.well-known/hookproof/jwks.json", jwks_handler(services.rollouts), allow_head=False
        ),
    )


def construct_workers(
    settings: Settings,
    roles: frozenset[str],
    store: EventStore,
    subscriptions: SubscriptionService,
    services: Services,
) -> tuple[tuple[tuple[str, Worker], ...], tuple[Closer, ...]]:
    """The workers this process runs for its roles, and the settlers its stop runs."""
    workers: list[tuple[str, Worker]] = []
    settlers: list[Closer] = []
    if "projector" in roles:  # ``serve --workers N``: the first child only
        projector = ProjectorRole(
            store, async_projections(), intervals={AttemptStats.name: settings.stats_interval_s}
        )
        workers.append(("projector", projector.run))
        settlers.append(projector.settle)
    workers.append(("expiry", Periodic("expiry", EXPIRY_INTERVAL_S, subscriptions.expire_due)))
    if services.archiver is not None:
        workers.append(
            (
                "archiver",
                Periodic("archiver", settings.archive_interval_s, services.archiver.run_due),
            )
        )
    if "projector" in roles:  # it tails the log, as the projector does
        workers.append(("notifier", services.notifier.run))
    if "dispatcher" in roles:
        workers.append(("dispatcher", services.dispatcher.run))
    interval = settings.receipt_refusal_interval_s
    if interval > 0:  # the aggregated audit trail of refused receipts
        refusals = functools.partial(services.receipts.refusals.run, store, interval)
        workers.append(("receipt-refusals", refusals))
    if services.receipt_redeliverer.timeout_s > 0 and "dispatcher" in roles:
        workers.append(("receipt-timeout", services.receipt_redeliverer.run))
    return tuple(workers), tuple(settlers)


# -- the whole engine ----------------------------------------------------------------------


async def build_engine(
    settings: Settings, pool: asyncpg.Pool, options: EngineOptions | None = None
) -> Engine:
    """Build the engine on ``pool`` from ``settings``, step by step (``docs/composition.md``)."""
    options = options if options is not None else EngineOptions()
    clock = options.clock
    roles = settings.roles
    await construct_schema(pool)
    store = construct_store(pool, settings)
    jobs = BackgroundJobs()
    stop_tracing = construct_tracing()
    keyring = construct_keyring(pool, settings, store, clock)
    await keyring.ensure_active_engine_key(actor="system")
    tenants = construct_tenants(store, settings, clock)
    consumers, portal = construct_consumers(store, settings, clock)
    subscriptions = construct_subscriptions(
        store, settings, keyring=keyring, consumers=consumers, clock=clock
    )
    transport = construct_egress(settings)
    challenger = construct_challenger(store, settings, subscriptions, transport, keyring, clock)
    rollouts = construct_rollouts(store, settings, keyring, subscriptions, clock)
    rotation = construct_rotation(pool, keyring, challenger, subscriptions, rollouts)
    delivery = construct_delivery(
        pool,
        store,
        settings,
        subscriptions=subscriptions,
        keyring=keyring,
        transport=transport,
        rollouts=rollouts,
        options=options,
    )
    receipts, redeliverer = construct_receipts(store, settings, delivery.metrics, clock)
    archiver = (
        construct_archiver(pool, settings, store=store, keyring=keyring, clock=clock)
        if settings.retention_days is not None and "scheduler" in roles
        else None
    )
    services = Services(
        keyring=keyring,
        transport=transport,
        challenger=challenger,
        drift_guard=delivery.drift_guard,
        ingest=delivery.ingest,
        event_types=delivery.event_types,
        reader=delivery.reader,
        destination=delivery.destination,
        dispatcher=delivery.dispatcher,
        metrics=delivery.metrics,
        notifier=delivery.notifier,
        recovery=delivery.recovery,
        rotation=rotation,
        rollouts=rollouts,
        receipts=receipts,
        receipt_redeliverer=redeliverer,
        archiver=archiver,
    )
    api = construct_api(
        settings,
        store,
        tenants=tenants,
        subscriptions=subscriptions,
        consumers=consumers,
        portal=portal,
        challenger=challenger,
        rotation=rotation,
        jobs=jobs,
    )
    workers, settlers = construct_workers(settings, roles, store, subscriptions, services)
    closers: list[Closer] = [] if stop_tracing is None else [stop_tracing]  # flushed last
    closers += [transport.close, delivery.validator.close, delivery.ingest.groups.close]
    return Engine(
        settings=settings,
        pool=pool,
        store=store,
        tenants=tenants,
        subscriptions=subscriptions,
        api=api,
        services=services,
        workers=workers,
        extra_routes=construct_routes(services, delivery.deliveries),
        closers=tuple(closers),
        settlers=settlers,
        roles=roles,
        jobs=jobs,
        clock=clock,
    )
