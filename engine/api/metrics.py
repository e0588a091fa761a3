"""``GET /metrics``: the engine's prometheus exposition behind the operator's token
(``HOOKPROOF_METRICS_TOKEN`` or ``HOOKPROOF_ADMIN_TOKEN``; with neither it is refused)."""

from __future__ import annotations

from aiohttp import web
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from hookproof.errors import HookproofError

from ..delivery.repository import DeliveryRepository
from ..observe.metrics import COUNT_CAP, EngineMetrics
from .context import ApiContext, require_bearer

__all__ = ["metrics_route"]


def _authorize(request: web.Request) -> None:
    settings = ApiContext.of(request).settings
    token, admin = settings.metrics_token, settings.admin_token
    if token is None and admin is None:
        err = HookproofError(
            "metrics need HOOKPROOF_METRICS_TOKEN or HOOKPROOF_ADMIN_TOKEN",
            code="metrics_disabled",
        )
        err.status = 403
        err.title = "Forbidden"
        raise err
    if token is not None:
        try:
            require_bearer(request, token)
            return
        except HookproofError:
            if admin is None:
                raise
    assert admin is not None
    require_bearer(request, admin)


def metrics_route(metrics: EngineMetrics, deliveries: DeliveryRepository) -> web.RouteDef:
    async def handler(request: web.Request) -> web.Response:
        _authorize(request)
        body = metrics.render(await deliveries.backlog(COUNT_CAP))
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    return web.get("/metrics", handler, allow_head=False)
