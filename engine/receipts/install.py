"""Wire receipts into the engine (``engine/features.py`` calls :func:`install`).

Configuration (environment):

- ``HOOKPROOF_RECEIPTS_URL``: the engine's public receipts URL, exactly as subscribers sign it
  as ``@target-uri`` (e.g. ``https://hookproof.example.com/v1/receipts``); else
  ``HOOKPROOF_PUBLIC_URL`` + ``/v1/receipts``; else each request's own scheme, Host and path
  (fine on a direct listener, wrong behind a TLS-terminating proxy: configure it there).
- ``HOOKPROOF_RECEIPT_TIMEOUT`` (seconds, default 900; 0: off) and
  ``HOOKPROOF_RECEIPT_REDELIVERIES`` (default 3): see :mod:`.redeliver`.
- ``HOOKPROOF_OTEL_EXPORTER``: per-attempt spans, see :mod:`hookproof.engine.tracing`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import structlog
from aiohttp import web

from .. import tracing
from .api import routes
from .redeliver import ReceiptRedeliverer
from .service import ReceiptService

if TYPE_CHECKING:
    from ..daemon import Engine

__all__ = ["install", "receipts_url_from"]

log = structlog.get_logger("hookproof.receipts")


def receipts_url_from(settings: Any, env: Mapping[str, str] | None = None) -> str | None:
    env = os.environ if env is None else env
    url = getattr(settings, "receipts_url", None) or env.get("HOOKPROOF_RECEIPTS_URL")
    if url:
        return str(url)
    base = getattr(settings, "public_url", None) or env.get("HOOKPROOF_PUBLIC_URL")
    return str(base).rstrip("/") + "/v1/receipts" if base else None


def install(engine: Engine) -> None:
    service = ReceiptService(
        engine.store,
        receipts_url=receipts_url_from(engine.settings),
        clock=engine.subscriptions.clock,
    )
    redeliverer = ReceiptRedeliverer.from_env(engine.store, clock=engine.subscriptions.clock)
    engine.services.update(receipts=service, receipt_redeliverer=redeliverer)
    engine.extra_routes.extend(routes(service))
    _extend_metrics(engine, service)
    if redeliverer.timeout_s > 0 and "dispatcher" in engine.roles:
        engine.workers.append(("receipt-timeout", redeliverer.run))
    tracing.instrument_dispatcher(engine.services.get("dispatcher"))


def _extend_metrics(engine: Engine, service: ReceiptService) -> None:
    """Append the receipt counters to ``GET /metrics`` (wraps the delivery metrics route)."""
    for i, route in enumerate(engine.extra_routes):
        if isinstance(route, web.RouteDef) and route.method == "GET" and route.path == "/metrics":
            inner = route.handler

            async def metrics(request: web.Request, inner: Any = inner) -> web.StreamResponse:
                resp: web.StreamResponse = await inner(request)
                if isinstance(resp, web.Response) and resp.status == 200 and resp.text is not None:
                    text = resp.text.rstrip("\n") + "\n" + "\n".join(service.metrics.lines())
                    return web.Response(text=text + "\n", content_type="text/plain")
                return resp

            engine.extra_routes[i] = web.get("/metrics", metrics, allow_head=False)
            return
    log.warning("receipt_metrics_not_exported", reason="no /metrics route to extend")
