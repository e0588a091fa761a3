"""The projections layer's named-query registry (``projections/sql/queries``)."""

from __future__ import annotations

from hookproof.events.sqlfiles import Queries

__all__ = ["PROJECTION_QUERIES"]

PROJECTION_QUERIES = Queries("hookproof.projections")
