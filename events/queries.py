"""The events layer's named-query registry (``events/sql/queries``)."""

from __future__ import annotations

from .sqlfiles import Queries

__all__ = ["EVENT_QUERIES"]

EVENT_QUERIES = Queries("hookproof.events")
