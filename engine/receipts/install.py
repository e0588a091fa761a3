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

from typing import TYPE_CHECKING

import structlog

from ..api.receipts import routes
from .redeliver import ReceiptRedeliverer
from .service import ReceiptMetrics, ReceiptService

if TYPE_CHECKING:
    from ..daemon import Engine

__all__ = ["install"]

log = structlog.get_logger("hookproof.receipts")


def install(engine: Engine) -> None:
    service = ReceiptService(
        engine.store,
        receipts_url=engine.settings.receipts_url,
        clock=engine.subscriptions.clock,
        metrics=ReceiptMetrics(engine.services.get("metrics")),
    )
    redeliverer = ReceiptRedeliverer(
        engine.store,
        timeout_s=engine.settings.receipt_timeout_s,
        max_redeliveries=engine.settings.receipt_redeliveries,
        clock=engine.subscriptions.clock,
    )
    engine.services.receipts = service
    engine.services.receipt_redeliverer = redeliverer
    engine.extra_routes.extend(routes(service))
    interval = engine.settings.receipt_refusal_interval_s
    if interval > 0:  # the aggregated audit trail of refused receipts
        engine.workers.append(
            ("receipt-refusals", lambda stop: service.refusals.run(engine.store, interval, stop))
        )
    if redeliverer.timeout_s > 0 and "dispatcher" in engine.roles:
        engine.workers.append(("receipt-timeout", redeliverer.run))
