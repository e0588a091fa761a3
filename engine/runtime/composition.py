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
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import asyncpg
import structlog
from aiohttp import web

from hookproof.config import Settings
from hookproof.events import EventStore
from hookproof.projections.attempt_stats import AttemptStats

from ..api import ApiContext, create_app
from ..api.branding import routes as branding_routes
from ..api.challenges import routes as challenge_routes
from ..api.delivery import routes as delivery_routes
from ..api.event_types import routes as event_type_routes
from ..api.jwks import jwks_handler
from ..api.keys import routes as key_routes
from ..api.metrics import metrics_route
from ..api.receipts import routes as receipt_routes
from ..api.recover import routes as recover_routes
from ..api.relay import routes as relay_routes
from ..api.rollouts import routes as rollout_routes
from ..api.search import routes as search_routes
from ..api.test_events import routes as test_event_routes
from ..archive import Archiver, SegmentArchive
from ..archive.repository import ArchiveRepository
from ..challenge import Challenger
from ..challenge.background import BackgroundChallenges
from ..common.clock import Clock, system_clock
from ..consumers import ConsumerService
from ..db.database import connect_pool
from ..db.migrate import migrate
from ..delivery.log_repository import DeliveryLog
from ..delivery.repository import DeliveryRepository
from ..destinations.brokers.adapter import BrokerDestination
from ..destinations.brokers.credentials import DestinationCredentials
from ..destinations.port import Destination
from ..egress import EgressTransport
from ..endpoint_auth import AuthMaterials, EndpointAuth
from ..endpoint_auth.sender import fetch_deadline
from ..ingest.test_events import TestEventSender
from ..keys import KeyRing
from ..keys.master_check import master_key_problem
from ..keys.material import load_master_key
from ..keys.signers import ChallengeSigningKeys
from ..observe import tracing
from ..observe.memory import TRIM_INTERVAL_S, malloc_trimmer, trim_free_memory
from ..observe.metrics import EngineMetrics
from ..portal.branding_repository import BrandingRepository
from ..portal.repository import PortalRepository
from ..portal.service import PortalService, PortalSessionEnds
from ..portal.tenants import TenantService
from ..receipts.redeliver import ReceiptRedeliverer
from ..receipts.service import ReceiptMetrics, ReceiptService
from ..recording.projections_runner import ProjectorRole
from ..recording.registry import async_projections, inline_hooks
from ..relay.challenge import RelayChallenges
from ..relay.hub import RelayHub
from ..relay.repository import RelayRepository
from ..rollouts.service import RolloutService
from ..rotation.repository import RotationRepository
from ..rotation.service import Rotation
from ..search import Replays, Search
from ..standby import ReadRouter, ReadSide
from ..subscriptions import SubscriptionService
from .composition_delivery import (
    construct_delivery,
    construct_destination,
    construct_recovery,
)
from .jobs import BackgroundJobs, Closer, Periodic, Worker
from .options import EngineOptions
from .services import Services

__all__ = [
    "Engine",
    "EngineOptions",
    "build_engine",
    "construct_api",
    "construct_archiver",
    "construct_auth_materials",
    "construct_challenger",
    "construct_consumers",
    "construct_delivery",
    "construct_destination",
    "construct_egress",
    "construct_endpoint_auth",
    "construct_keyring",
    "construct_reads",
    "construct_receipts",
    "construct_recovery",
    "construct_relay",
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
    credentials: DestinationCredentials | None = None,
    auth_materials: AuthMaterials | None = None,
) -> SubscriptionService:
    return SubscriptionService(
        store,
        settings,
        secrets_issuer=keyring,
        consumers=consumers,
        clock=clock,
        credentials=credentials,
        auth_materials=auth_materials,
    )


def construct_auth_materials(pool: asyncpg.Pool, settings: Settings) -> AuthMaterials:
    """Where a subscription's ``auth`` is sealed under the master key (DESIGN.md section 14)."""
    return AuthMaterials.from_settings(pool, settings)


def construct_endpoint_auth(
    materials: AuthMaterials, transport: EgressTransport, settings: Settings
) -> EndpointAuth:
    """Applies a subscription's ``auth`` to its challenges and deliveries (tokens cached, a
    fetch bounded within an attempt's lease)."""
    deadline = fetch_deadline(
        settings.connect_timeout_s, settings.request_timeout_s, settings.lease_margin_s
    )
    return EndpointAuth(materials, transport, fetch_deadline_s=deadline)


def construct_egress(settings: Settings) -> EgressTransport:
    """The pinned, SSRF-safe transport every byte to a subscriber goes through."""
    transport = EgressTransport.from_settings(settings)
    for address, port in settings.egress_allow:
        log.warning("egress_allowance_configured", address=address, port=port)
    return transport


def construct_relay(pool: asyncpg.Pool, settings: Settings) -> RelayHub:
    """This worker's relay sessions (``hookproof listen``) and the exchanges through any
    worker's, over Postgres (``engine/relay/hub.py``); a report is waited for as long as an
    HTTPS answer would be."""
    return RelayHub(
        RelayRepository(pool),
        report_timeout_s=settings.connect_timeout_s + settings.request_timeout_s,
    )


def construct_challenger(
    store: EventStore,
    settings: Settings,
    subscriptions: SubscriptionService,
    transport: EgressTransport,
    keyring: KeyRing,
    clock: Clock,
    brokers: BrokerDestination | None = None,
    relay: RelayHub | None = None,
    endpoint_auth: EndpointAuth | None = None,
    kinds: Destination | None = None,
) -> Challenger:
    """The challenger (``kinds``: the composed destination port an installed kind's
    challenge goes through)."""
    return Challenger(
        store,
        subscriptions,
        transport,
        settings,
        signing_key_for=ChallengeSigningKeys(keyring),
        secret_for=keyring.secret_for,
        clock=clock,
        brokers=brokers,
        relay=None if relay is None else RelayChallenges(relay),
        auth=endpoint_auth,
        kinds=kinds,
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


async def construct_reads(
    settings: Settings,
    pool: asyncpg.Pool,
    primary: ReadSide,
    clock: Clock,
) -> tuple[ReadRouter, Closer | None]:
    """Who answers the read routes (``engine/standby``); with ``HOOKPROOF_READ_DATABASE_URL``
    a read-only pool on the standby, connected when first used, and its close."""
    if not settings.read_database_url:
        return ReadRouter(primary), None
    read_pool = await connect_pool(
        settings.read_database_url, min_size=0, max_size=4, read_only=True
    )
    router = ReadRouter.with_standby(primary, pool, read_pool, settings, clock)
    return router, read_pool.close


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
    reads: ReadRouter,
    keys_problem: Callable[[], Awaitable[str | None]] | None = None,
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
        reads=reads,
        keys_problem=keys_problem,
    )


def construct_routes(
    services: Services,
    deliveries: DeliveryRepository,
    store: EventStore,
    relay: RelayHub | None = None,
    jobs: BackgroundJobs | None = None,
) -> tuple[web.RouteDef, ...]:
    """The parts' routes beside the API's own (``create_app``), in this order."""
    return (
        *(relay_routes(relay) if relay is not None else ()),
        *rollout_routes(services.rollouts),
        *event_type_routes(services.event_types),
        metrics_route(services.metrics, deliveries),
        *delivery_routes(services.ingest, services.reader, DeliveryLog.of(store)),
        *recover_routes(services.recovery),
        *search_routes(
            Search.of(store),
            Replays(
                store, Search.of(store), (jobs if jobs is not None else BackgroundJobs()).spawn
            ),
        ),
        *test_event_routes(TestEventSender(services.ingest, services.event_types)),
        *branding_routes(BrandingRepository.of(store)),
        *key_routes(services.rotation),
        *receipt_routes(services.receipts),
        *challenge_routes(services.challenger),
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
    if malloc_trimmer() is not None:  # RSS follows the live set, not its high-water mark
        workers.append(("memory", Periodic("memory", TRIM_INTERVAL_S, trim_free_memory)))
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
    master_key = load_master_key(settings)
    credentials = DestinationCredentials(pool, master_key)  # broker secrets
    sealed = construct_auth_materials(pool, settings)  # endpoint auth secrets
    subscriptions = construct_subscriptions(
        store,
        settings,
        keyring=keyring,
        consumers=consumers,
        clock=clock,
        credentials=credentials,
        auth_materials=sealed,
    )
    transport = construct_egress(settings)
    auth = construct_endpoint_auth(sealed, transport, settings)
    broker = BrokerDestination.from_settings(settings, subscriptions, credentials)
    relay = construct_relay(pool, settings)
    rollouts = construct_rollouts(store, settings, keyring, subscriptions, clock)
    delivery = construct_delivery(
        pool,
        store,
        settings,
        subscriptions=subscriptions,
        keyring=keyring,
        transport=transport,
        rollouts=rollouts,
        options=options,
        brokers=broker,
        relay=relay,
        endpoint_auth=auth,
    )
    challenger = construct_challenger(
        store,
        settings,
        subscriptions,
        transport,
        keyring,
        clock,
        brokers=broker,
        relay=relay,
        endpoint_auth=auth,
        kinds=delivery.destination,
    )
    rotation = construct_rotation(pool, keyring, challenger, subscriptions, rollouts)
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
    primary = ReadSide("primary", store, subscriptions, delivery.reader, DeliveryLog.of(store))
    reads, close_reads = await construct_reads(settings, pool, primary, clock)
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
        reads=reads,
        keys_problem=functools.partial(master_key_problem, pool, master_key),
    )
    workers, settlers = construct_workers(settings, roles, store, subscriptions, services)
    closers: list[Closer] = [] if stop_tracing is None else [stop_tracing]  # flushed last
    closers += [transport.close, broker.close, delivery.validator.close]
    closers.append(delivery.ingest.groups.close)
    closers += [] if close_reads is None else [close_reads]
    closers.append(relay.close)  # closed first: its sessions end before the pool does
    return Engine(
        settings=settings,
        pool=pool,
        store=store,
        tenants=tenants,
        subscriptions=subscriptions,
        api=api,
        services=services,
        workers=workers,
        extra_routes=construct_routes(services, delivery.deliveries, store, relay, jobs),
        closers=tuple(closers),
        settlers=settlers,
        roles=roles,
        jobs=jobs,
        clock=clock,
    )
