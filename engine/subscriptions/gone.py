"""The dispatcher's ``on_gone``: an endpoint answered that the subscription is gone (410)."""

from __future__ import annotations

import structlog

from .service import SubscriptionService

__all__ = ["SuspendOnGone"]

log = structlog.get_logger("hookproof.subscriptions")


class SuspendOnGone:
    """Suspends the subscription (actor ``system:dispatcher``); a failure is logged
    (``suspend_on_gone_failed``), never raised into the attempt's recording."""

    __slots__ = ("subscriptions",)

    def __init__(self, subscriptions: SubscriptionService) -> None:
        self.subscriptions = subscriptions

    async def __call__(self, subscription_id: str, reason: str) -> None:
        try:
            await self.subscriptions.transition(
                None, subscription_id, "suspend", actor="system:dispatcher", reason=reason
            )
        except Exception as exc:
            log.warning(
                "suspend_on_gone_failed", subscription_id=subscription_id, error=type(exc).__name__
            )
