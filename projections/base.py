"""What a projection is: a pure fold of events into rows, keyed, with its table's SQL.

The same ``evolve`` runs incrementally (load the affected rows, fold, upsert) and in a rebuild
(fold everything in memory, COPY), so both paths give the same table by construction.
"""

from __future__ import annotations

from collections.abc import Hashable
from operator import itemgetter
from typing import Any, ClassVar

from hookproof.events import RecordedEvent
from hookproof.events.sqlfiles import NamedQueries, render

from .queries import PROJECTION_QUERIES

__all__ = ["Projection", "Row"]

Row = dict[str, Any]


class Projection:
    """Subclass and set ``name``, ``table``, ``columns``, ``key_column``; implement the fold."""

    name: ClassVar[str]
    table: ClassVar[str]
    columns: ClassVar[tuple[str, ...]]
    key_column: ClassVar[str]
    #: The primary key's columns when it has several (``key_column`` then only names them in
    #: messages, and a row's key is the tuple of their values); None: ``key_column`` alone.
    key_columns: ClassVar[tuple[str, ...] | None] = None

    def row_key(self, row: Row) -> Hashable:
        """The key of a row of the table (as ``key`` gives it for an event)."""
        if self.key_columns is None:
            key: Hashable = row[self.key_column]
            return key
        return tuple(row[c] for c in self.key_columns)

    @property
    def primary_key(self) -> tuple[str, ...]:
        return self.key_columns or (self.key_column,)

    def new_state(self) -> dict[Any, Row]:
        """The empty in-memory table a rebuild folds into."""
        return {}

    def key(self, event: RecordedEvent) -> Hashable | None:
        """The row this event touches, or None when it does not concern the projection."""
        raise NotImplementedError

    def evolve(self, row: Row | None, event: RecordedEvent) -> Row:
        """The row after the event (rows are never deleted). Pure: no I/O, no clock."""
        raise NotImplementedError

    #: ``<name>.load`` and ``<name>.upsert``, loaded when the subclass is defined.
    statements: ClassVar[NamedQueries]

    #: False: the projection has no ``load``/``upsert`` statements (it brings its own
    #: ``apply_incremental``, and its rebuild its own ``fold_page``).
    row_statements: ClassVar[bool] = True

    #: The ``load`` statement's name when several projections share it (``by_stream.load``:
    #: rows keyed by ``stream_id``); None: ``<name>.load``.
    load_query: ClassVar[str | None] = None

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if "name" in cls.__dict__ and cls.row_statements:
            load = cls.__dict__.get("load_query") or f"{cls.name}.load"
            cls.statements = PROJECTION_QUERIES.named(load, f"{cls.name}.upsert")

    def sql(self, which: str, table: str | None = None) -> str:
        """The ``load`` or ``upsert`` statement over ``table`` (default: the live table)."""
        name = (
            (self.load_query or f"{self.name}.load") if which == "load" else f"{self.name}.{which}"
        )
        return render(self.statements[name], table=table or self.table)

    #: The fold reads only row headers (stream, version, type, position, time): the projector
    #: tails the log without payloads, metadata or hashes for it (``tail_headers.sql``).
    headers_only: ClassVar[bool] = False

    #: Only events of these categories concern the projection (None: all). Rebuilds read
    #: just these; the fold still checks ``key``.
    categories: ClassVar[tuple[str, ...] | None] = None

    #: The table is UNLOGGED: it writes no WAL, and a crash (or a standby's promotion) empties
    #: it. Only for a projection that no request path reads and that is always caught up
    #: before it is read: its mark in ``projection_unlogged_marks`` (unlogged too, so it
    #: vanishes with the rows) tells the projector that the rows are gone and the checkpoint
    #: no longer describes them; the projector then folds the log again from its start.
    unlogged: ClassVar[bool] = False

    #: Kept inside the append's own transaction (never behind the log): the store's inline
    #: hooks are built from the projections that say so (``engine/recording/registry.py``, at the
    #: composition root). False: the projector keeps it from the log, checkpointed.
    inline: ClassVar[bool] = False

    def record(self, row: Row) -> tuple[Any, ...]:
        getter = self.__dict__.get("_getter")
        if getter is None:
            getter = self.__dict__["_getter"] = itemgetter(*self.columns)
        values = getter(row)
        return values if isinstance(values, tuple) else (values,)
