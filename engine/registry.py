"""Every projection the engine maintains, by name."""

from __future__ import annotations

from hookproof.projections import Projection, StreamCatalogue
from hookproof.projections.attempt_stats import AttemptStats
from hookproof.projections.consumers import Consumers
from hookproof.projections.deliveries import DeliveryLedger
from hookproof.projections.event_types import EventTypes
from hookproof.projections.subscriptions import Subscriptions

__all__ = ["async_projections", "projections_by_name"]


def async_projections() -> list[Projection]:
    """Projections kept by the projector (the others are inline with their streams)."""
    return [StreamCatalogue(), AttemptStats()]


def projections_by_name() -> dict[str, Projection]:
    items: list[Projection] = [
        StreamCatalogue(),
        Subscriptions(),
        DeliveryLedger(),
        EventTypes(),
        Consumers(),
        AttemptStats(),
    ]
    return {p.name: p for p in items}
