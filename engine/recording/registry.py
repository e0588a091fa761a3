"""Every projection the engine maintains, declared once, and the store's inline hooks.

Each projection says whether it is inline (:attr:`Projection.inline`). The inline ones become
the event store's hooks (:func:`inline_hooks`, handed to the store by the composition root,
``engine/runtime/composition.py``), in the order listed here; the others are the projector's
(:func:`async_projections`).
"""

from __future__ import annotations

from hookproof.events.store import InlineHook
from hookproof.projections import Projection, StreamCatalogue
from hookproof.projections.attempt_stats import AttemptStats
from hookproof.projections.consumers import Consumers
from hookproof.projections.deliveries import DeliveryLedger
from hookproof.projections.event_types import EventTypes
from hookproof.projections.inline import InlineProjection
from hookproof.projections.subscriptions import Subscriptions

from .inline import LedgerInline

__all__ = ["async_projections", "inline_hooks", "projections", "projections_by_name"]


def projections() -> list[Projection]:
    """Every projection, fresh instances; the inline ones in the order their hooks run."""
    return [
        Subscriptions(),
        Consumers(),
        EventTypes(),
        DeliveryLedger(),
        StreamCatalogue(),
        AttemptStats(),
    ]


def async_projections() -> list[Projection]:
    """Projections kept by the projector (the others are inline with their streams)."""
    return [p for p in projections() if not p.inline]


def projections_by_name() -> dict[str, Projection]:
    return {p.name: p for p in projections()}


def inline_hooks() -> list[InlineHook]:
    """One hook per inline projection: its rows move in the append's own transaction. The
    ledger's takes ingest's new delivery streams in one statement (:class:`LedgerInline`)."""
    hooks: list[InlineHook] = []
    for p in projections():
        if p.inline:
            hooks.append(LedgerInline(p) if isinstance(p, DeliveryLedger) else InlineProjection(p))
    return hooks
