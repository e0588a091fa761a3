"""``GET /metrics``: the engine's prometheus exposition behind the operator's token
(``HOOKPROOF_METRICS_TOKEN`` or ``HOOKPROOF_ADMIN_TOKEN``; with neither it is refused)."""

from __future__ import annotations

from aiohttp import web
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from ..delivery.repository import DeliveryRepository
from ..observe.metrics import COUNT_CAP, EngineMetrics
from .context import ApiContext, authorize

__all__ = ["metrics_route"]


def metrics_route(metrics: EngineMetrics, deliveries: DeliveryRepository) -> web.RouteDef:
    async def handler(request: web.Request) -> web.Response:
        settings = ApiContext.of(request).settings
        await authorize(
            request,
            "operator",
            also=settings.metrics_token,
            what="/metrics",
            disabled="metrics_disabled",
        )
        body = metrics.render(await deliveries.backlog(COUNT_CAP))
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    return web.get("/metrics", handler, allow_head=False)
