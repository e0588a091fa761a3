"""Wire the optional parts into the engine: keys, egress, challenges (and later deliveries)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import structlog
from aiohttp import web

from hookproof.projections.subscriptions import SubscriptionState

from .memo import BoundedMemo

if TYPE_CHECKING:
    from .daemon import Engine
    from .delivery.repository import DeliveryRepository
    from .keys import KeyRing
    from .rotation_repository import RotationRepository

__all__ = ["Ports", "install"]

log = structlog.get_logger("hookproof.features")

#: Subscription states the dispatcher's poster keeps per worker (see ``install_delivery``).
STATE_MEMO = 2_048


@dataclass(frozen=True)
class Ports:
    """The pool-backed adapters the composition root (``build_engine``) builds once and hands
    to the features; no feature reaches the pool itself."""

    keyring: KeyRing
    deliveries: DeliveryRepository
    rotation: RotationRepository


async def install(engine: Engine, ports: Ports) -> None:
    from .api.jwks import jwks_handler
    from .challenge import Challenger
    from .egress import EgressTransport

    settings = engine.settings
    ring = ports.keyring
    await ring.ensure_active_engine_key(actor="system")
    engine.subscriptions.secrets_issuer = ring
    transport = EgressTransport.from_settings(settings)
    engine.closers.append(transport.close)
    for address, port in settings.egress_allow:
        log.warning("egress_allowance_configured", address=address, port=port)

    async def signing_key_for(state: SubscriptionState) -> Any:
        if state.config.signature_algorithm == "hmac-sha256":
            return await ring.signing_key_for_subscription(state.subscription_id)
        return await ring.signing_key()

    challenger = Challenger(
        engine.store,
        engine.subscriptions,
        transport,
        settings,
        signing_key_for=signing_key_for,
        secret_for=ring.secret_for,
        clock=engine.subscriptions.clock,
    )
    engine.services.keyring = ring
    engine.services.transport = transport
    engine.services.challenger = challenger

    async def challenge_in_background(state: SubscriptionState) -> None:
        async def job() -> None:
            try:
                await challenger.run(state.subscription_id, actor="system:challenger")
            except Exception as exc:
                log.warning(
                    "challenge_job_failed",
                    subscription_id=state.subscription_id,
                    error=type(exc).__name__,
                )

        engine.spawn(job(), f"challenge-{state.subscription_id}")

    async def challenge_now(state: SubscriptionState, actor: str) -> dict[str, Any]:
        return await rotation.challenge(state.subscription_id, actor=actor)

    install_rollouts(engine, ring)
    from .rotation import Rotation

    rotation = Rotation(
        ring, challenger, engine.subscriptions, ports.rotation, rollouts=engine.services.rollouts
    )
    install_delivery(engine, ring, transport, ports.deliveries)
    engine.services.rotation = rotation
    from .api.keys import routes as key_routes

    engine.extra_routes.extend(key_routes(rotation))

    try:  # receipts (applicationReceipt.v1) live in their own package
        from .receipts import install as install_receipts
    except ImportError:
        install_receipts = None
    if install_receipts is not None:
        install_receipts.install(engine)

    engine.api.on_registered = challenge_in_background
    engine.api.on_challenge = challenge_now
    engine.extra_routes.append(
        web.get(
            "/.well-known/hookproof/jwks.json",
            jwks_handler(engine.services.rollouts),  # the ring's, with rollout targets
            allow_head=False,
        )
    )


def install_rollouts(engine: Engine, ring: Any) -> None:
    """Rollouts of a signing change: the service, its routes and the automatic pause check."""
    from .api.rollouts import routes as rollout_routes
    from .rollouts.service import RolloutService

    service = RolloutService(
        engine.store,
        engine.settings,
        ring=ring,
        subscriptions=engine.subscriptions,
        clock=engine.subscriptions.clock,
    )
    engine.services.rollouts = service
    engine.extra_routes.extend(rollout_routes(service))


def install_delivery(
    engine: Engine, ring: Any, transport: Any, deliveries: DeliveryRepository
) -> None:
    """Ingest, the ledger reads, the dispatcher and its metrics."""
    from hookproof.events.key_events import PURPOSE_ENGINE, PURPOSE_SUBSCRIPTION
    from hookproof.projections.key_ring import scope_of

    from .api.delivery import routes as delivery_routes
    from .api.event_types import routes as event_type_routes
    from .delivery.dispatcher import Dispatcher
    from .delivery.ingest import IngestService
    from .delivery.ledger import ClaimRow
    from .delivery.views import DeliveryReader
    from .event_types.gate import SchemaGate
    from .event_types.offload import SchemaValidator
    from .event_types.repository import EventTypeRepository
    from .event_types.service import EventTypeService

    s = engine.settings
    # payloads and examples too dear to validate on the loop go to one validation process
    validator = SchemaValidator(deadline_s=s.schema_deadline_s)
    engine.closers.append(validator.close)
    event_types = EventTypeService(
        engine.store, clock=engine.subscriptions.clock, validator=validator
    )
    engine.services.event_types = event_types
    engine.extra_routes.extend(event_type_routes(event_types))
    ingest = IngestService(
        engine.store,
        clock=engine.subscriptions.clock,
        group_window_s=max(0.0, s.ingest_group_window_s),
        max_group=s.ingest_group_max,
        max_inflight=s.ingest_group_inflight,
        gate=SchemaGate(EventTypeRepository.of(engine.store), validator=validator),
    )
    engine.closers.append(ingest.groups.close)
    reader = DeliveryReader(engine.store, deliveries)

    async def key_provider(subscription_id: str, alg: str) -> tuple[Any, int]:
        if alg == "hmac-sha256":
            view = await ring.active(scope_of(PURPOSE_SUBSCRIPTION, subscription_id))
            key = await ring.signing_key_for_subscription(subscription_id)
        else:
            view = await ring.active(PURPOSE_ENGINE)
            key = await ring.signing_key()
        return key, (view.generation if view is not None else 0)

    from .challenge.drift import DriftGuard

    guard = DriftGuard(engine.store, engine.subscriptions, transport)
    engine.services.drift_guard = guard
    # subscription id -> state, reused while its version holds; bounded (~1.8 KiB each): a
    # fan-out to 10,000 sites would otherwise keep one per subscription in each worker
    states: BoundedMemo[str, Any] = BoundedMemo(STATE_MEMO)

    async def poster(row: ClaimRow, body: bytes, headers: dict[str, str]) -> Any:
        sid = row.subscription_id
        if row.generation == row.sub_generation:
            state = states.get(sid)
            if state is None or state.version != row.sub_version:
                state = await engine.subscriptions.load(sid)
                states.put(sid, state)
            if state is not None and state.generation == row.generation:
                return await guard.post(state, row.endpoint, body, headers)
        # draining an older generation: its own endpoint, no newer pin applies
        return await transport.post(row.endpoint, body, headers)

    async def on_gone(subscription_id: str, reason: str) -> None:
        try:
            await engine.subscriptions.transition(
                None, subscription_id, "suspend", actor="system:dispatcher", reason=reason
            )
        except Exception as exc:
            log.warning(
                "suspend_on_gone_failed", subscription_id=subscription_id, error=type(exc).__name__
            )

    dispatcher = Dispatcher(
        engine.store,
        engine.settings,
        key_provider=key_provider,
        poster=poster,
        on_gone=on_gone,
        clock=engine.subscriptions.clock,
        lease_margin_s=engine.settings.lease_margin_s,
        rollouts=engine.services.get("rollouts"),
        key_by_id=ring.challenge_key,
        deliveries=deliveries,
    )

    from .api.metrics import metrics_route
    from .metrics import EngineMetrics

    metrics = EngineMetrics()
    dispatcher.metrics = metrics  # type: ignore[assignment]  # count/observe, on the registry
    metrics.breaker_states = dispatcher.gates.states
    engine.services.metrics = metrics
    engine.extra_routes.append(metrics_route(metrics, deliveries))

    engine.services.ingest = ingest
    engine.services.reader = reader
    engine.services.dispatcher = dispatcher
    from .notifications import Notifier

    notifier = Notifier(engine.store, ingest)
    engine.services.notifier = notifier
    if "projector" in engine.roles:  # it tails the log, as the projector does
        engine.workers.append(("notifier", notifier.run))
    engine.extra_routes.extend(delivery_routes(ingest, reader))
    from .api.recover import routes as recover_routes
    from .delivery.recover import Recovery

    recovery = Recovery(engine.store, engine.subscriptions, clock=engine.subscriptions.clock)
    engine.services.recovery = recovery
    engine.extra_routes.extend(recover_routes(recovery))
    if "dispatcher" in engine.roles:
        engine.workers.append(("dispatcher", dispatcher.run))
