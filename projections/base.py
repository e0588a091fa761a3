"""What a projection is: a pure fold of events into rows, keyed, with its table's SQL.

The same ``evolve`` runs incrementally (load the affected rows, fold, upsert) and in a rebuild
(fold everything in memory, COPY), so both paths give the same table by construction.
"""

from __future__ import annotations

from collections.abc import Hashable
from operator import itemgetter
from typing import Any, ClassVar

from hookproof.events import RecordedEvent
from hookproof.events.sqlfiles import query

__all__ = ["Projection", "Row"]

Row = dict[str, Any]


class Projection:
    """Subclass and set ``name``, ``table``, ``columns``, ``key_column``; implement the fold."""

    name: ClassVar[str]
    table: ClassVar[str]
    columns: ClassVar[tuple[str, ...]]
    key_column: ClassVar[str]

    def key(self, event: RecordedEvent) -> Hashable | None:
        """The row this event touches, or None when it does not concern the projection."""
        raise NotImplementedError

    def evolve(self, row: Row | None, event: RecordedEvent) -> Row | None:
        """The row after the event (None deletes it). Pure: no I/O, no clock."""
        raise NotImplementedError

    def sql(self, which: str, table: str | None = None) -> str:
        text = query(f"{self.name}.{which}", "hookproof.projections")
        return text.replace("{table}", table or self.table)

    #: Only events of these categories concern the projection (None: all). Rebuilds read
    #: just these; the fold still checks ``key``.
    categories: ClassVar[tuple[str, ...] | None] = None

    def record(self, row: Row) -> tuple[Any, ...]:
        getter = self.__dict__.get("_getter")
        if getter is None:
            getter = self.__dict__["_getter"] = itemgetter(*self.columns)
        values = getter(row)
        return values if isinstance(values, tuple) else (values,)
