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

from .. import tracing
from .api import routes
from .redeliver import ReceiptRedeliverer
from .service import ReceiptMetrics, ReceiptService

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
        metrics=ReceiptMetrics(engine.services.get("metrics")),
    )
    redeliverer = ReceiptRedeliverer.from_env(engine.store, clock=engine.subscriptions.clock)
    engine.services.update(receipts=service, receipt_redeliverer=redeliverer)
    engine.extra_routes.extend(routes(service))
    if redeliverer.timeout_s > 0 and "dispatcher" in engine.roles:
        engine.workers.append(("receipt-timeout", redeliverer.run))
    tracing.instrument_dispatcher(engine.services.get("dispatcher"))
