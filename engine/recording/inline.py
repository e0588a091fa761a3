"""The delivery ledger's inline hook, with ingest's bulk path for new delivery streams.

The ledger is an inline projection (``projections/deliveries.py`` says so); the registry
builds its hook from this class. Ingest's appends only open new delivery streams: their rows
are computed by the same ``evolve`` and inserted in one statement (or through COPY), with
nothing to load first. Any other append (admissions, outcomes) goes through the projection's
own fold (``fold_rows``: load, ``evolve``) and writes its rows in one statement too (one
upsert from parallel arrays, not one upsert per row).
"""

from __future__ import annotations

import asyncpg

from hookproof.engine.db.queries import ENGINE_QUERIES
from hookproof.events import RecordedEvent
from hookproof.events.delivery_events import DeliveryPlanned
from hookproof.projections.deliveries import DeliveryLedger, evolve_delivery
from hookproof.projections.inline import InlineProjection
from hookproof.projections.projector import fold_rows

__all__ = ["SQL", "LedgerInline"]

_PLANNED = DeliveryPlanned.__struct_config__.tag
#: from this many planned deliveries on, the ledger rows go in through COPY
_STAGE_MIN_ROWS = 256

SQL = ENGINE_QUERIES.named(
    "deliveries_insert_planned",
    "deliveries_insert_planned_arrays",
    "ingest_stage_create",
)


class LedgerInline(InlineProjection):
    """The ledger's rows in the same transaction as its delivery events."""

    __slots__ = ()

    def __init__(self, projection: DeliveryLedger | None = None) -> None:
        super().__init__(projection if projection is not None else DeliveryLedger())

    async def __call__(self, conn: asyncpg.Connection, recorded: list[RecordedEvent]) -> None:
        delivery = self.mine(recorded)
        if not delivery:
            return
        ledger = self.projection
        if all(e.stream_version == 1 and e.type == _PLANNED for e in delivery):
            rows = [ledger.record(evolve_delivery(None, e.decode(), 1)) for e in delivery]
            if len(rows) < _STAGE_MIN_ROWS:  # few rows: one statement beats three round trips
                columns = [list(c) for c in zip(*rows, strict=True)]
                await conn.execute(SQL["deliveries_insert_planned_arrays"], *columns)
                return
            await conn.execute(SQL["ingest_stage_create"])
            await conn.copy_records_to_table(
                "ingest_planned_stage", records=rows, columns=ledger.columns, schema_name="pg_temp"
            )
            await conn.execute(SQL["deliveries_insert_planned"])
            return
        rows = await fold_rows(conn, ledger, delivery)
        if rows:  # one row per delivery (fold_rows folds each key once): one statement
            await conn.execute(
                SQL["deliveries_insert_planned_arrays"], *[list(c) for c in zip(*rows, strict=True)]
            )
