"""Wire the optional parts into the engine: keys, egress, challenges (and later deliveries)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import structlog
from aiohttp import web

from hookproof.projections.subscriptions import SubscriptionState

if TYPE_CHECKING:
    from .daemon import Engine

__all__ = ["install"]

log = structlog.get_logger("hookproof.features")


async def install(engine: Engine) -> None:
    from .challenge import Challenger
    from .egress import EgressTransport
    from .keys import KeyRing
    from .keys.jwks import jwks_handler

    settings = engine.settings
    ring = KeyRing(engine.pool, settings, store=engine.store)
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
    engine.services.update(keyring=ring, transport=transport, challenger=challenger)

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
        return dict(await challenger.run(state.subscription_id, actor=actor))

    engine.api.on_registered = challenge_in_background
    engine.api.on_challenge = challenge_now
    engine.extra_routes.append(
        web.get("/.well-known/hookproof/jwks.json", jwks_handler(ring), allow_head=False)
    )
