"""What request handlers share: the services, found on the aiohttp app."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from hookproof.config import Settings
from hookproof.events import EventStore
from hookproof.projections.subscriptions import SubscriptionState

from ..subscriptions import SubscriptionService
from ..tenants import TenantService

__all__ = ["CONTEXT_KEY", "ApiContext", "actor", "tenant_of"]


@dataclass
class ApiContext:
    settings: Settings
    store: EventStore
    tenants: TenantService
    subscriptions: SubscriptionService
    #: called after registration, regeneration and resume (schedules the challenge)
    on_registered: Callable[[SubscriptionState], Awaitable[None]] | None = None
    #: runs a challenge now and returns its outcome
    on_challenge: Callable[[SubscriptionState, str], Awaitable[dict[str, Any]]] | None = None
    services: dict[str, Any] = field(default_factory=dict)

    @staticmethod
    def of(request: web.Request) -> ApiContext:
        return request.app[CONTEXT_KEY]


CONTEXT_KEY: web.AppKey[ApiContext] = web.AppKey("hookproof_context", ApiContext)


async def tenant_of(request: web.Request) -> str:
    return await ApiContext.of(request).tenants.authenticate(request.headers.get("Authorization"))


def actor(request: web.Request, tenant: str) -> str:
    return f"tenant:{tenant}"
