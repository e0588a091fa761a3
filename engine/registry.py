"""Every projection the engine maintains, by name."""

from __future__ import annotations

from hookproof.projections import Projection, StreamCatalogue

__all__ = ["projections_by_name"]


def projections_by_name() -> dict[str, Projection]:
    items: list[Projection] = [StreamCatalogue()]
    return {p.name: p for p in items}
