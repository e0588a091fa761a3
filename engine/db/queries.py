"""The engine layer's named-query registries (``engine/sql/queries``, and the receipts
package's own ``engine/receipts/sql/queries``)."""

from __future__ import annotations

from hookproof.events.sqlfiles import Queries

__all__ = ["ENGINE_QUERIES", "RECEIPT_QUERIES"]

ENGINE_QUERIES = Queries("hookproof.engine")
RECEIPT_QUERIES = Queries("hookproof.engine.receipts")
