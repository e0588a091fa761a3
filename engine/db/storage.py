"""What the database holds and how fast it grows: ``hookproof db status`` and the
``storage_outlook`` line ``serve`` logs at start-up (issue 40: retention is off by default, and
a deployment left running fills its disk without a word).

The rate comes from the log itself, cheaply: its head and the event ``WINDOW_EVENTS``
positions before it (two probes of the primary key, no count), events over the time from that
event to now (so a log idle since its last event shows a falling rate; positions of rolled-back
transactions count too, a slight overestimate). Bytes per event: every table of the schema (the
log, the ledger, bodies, projections: all grow with the events) over the log's rows (the
planner's estimate; the position span before the table is first analysed). The growth is their
product: what the tables gain per second while retention is off. With retention on, the hot
tables level off near ``retention x growth`` (Postgres reuses the space of archived rows; it
does not give it back to the file system), and the archive's segment files grow instead.
``outlook`` is the pure part; the rest reads or logs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import asyncpg
import structlog

from .queries import ENGINE_QUERIES

if TYPE_CHECKING:
    from .storage_repository import StorageRepository

__all__ = [
    "MIN_EVENTS",
    "WINDOW_EVENTS",
    "LogWindow",
    "Outlook",
    "TableSize",
    "human_bytes",
    "log_outlook",
    "outlook",
    "read_outlook",
    "read_tables",
]

log = structlog.get_logger("hookproof.storage")

SQL = ENGINE_QUERIES.named("storage_tables", "storage_log_window", "db_events_exists")

#: the rate is read over (at most) this many of the log's last events
WINDOW_EVENTS = 10_000
#: below this many events the schema's empty tables outweigh the data: no bytes per event
MIN_EVENTS = 1_000
_DAY_S = 86_400.0


@dataclass(frozen=True)
class TableSize:
    table: str
    total_bytes: int
    heap_bytes: int
    index_bytes: int
    unlogged: bool = False

    @property
    def other_bytes(self) -> int:
        """TOAST, free space and visibility maps."""
        return self.total_bytes - self.heap_bytes - self.index_bytes

    def to_json(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "totalBytes": self.total_bytes,
            "heapBytes": self.heap_bytes,
            "indexBytes": self.index_bytes,
            "otherBytes": self.other_bytes,
            "unlogged": self.unlogged,
        }


@dataclass(frozen=True)
class LogWindow:
    """The log's recent rate as read: ``events`` positions over ``seconds`` (from the first
    event of the window to now), the log's row count ``rows`` and its last event's time."""

    events: int
    seconds: float
    rows: int
    last_event_at: datetime | None = None


@dataclass(frozen=True)
class Outlook:
    tables: tuple[TableSize, ...]
    window: LogWindow | None
    retention_days: float | None
    bytes_per_event: float | None
    events_per_s: float | None

    @property
    def table_bytes(self) -> int:
        return sum(t.total_bytes for t in self.tables)

    @property
    def growth_bytes_per_s(self) -> float | None:
        if self.bytes_per_event is None or self.events_per_s is None:
            return None
        return self.bytes_per_event * self.events_per_s

    @property
    def growth_bytes_per_day(self) -> float | None:
        g = self.growth_bytes_per_s
        return None if g is None else g * _DAY_S

    @property
    def hot_bytes_at_retention(self) -> float | None:
        """Roughly where the hot tables level off with retention on (None: off or unknown)."""
        g = self.growth_bytes_per_day
        return None if g is None or self.retention_days is None else g * self.retention_days

    def log_fields(self) -> dict[str, Any]:
        w = self.window
        return {
            "retention": "on" if self.retention_days is not None else "off",
            "retention_days": self.retention_days,
            "table_bytes": self.table_bytes,
            "log_events": w.rows if w else 0,
            "bytes_per_event": _round(self.bytes_per_event, 1),
            "events_per_s": _round(self.events_per_s, 3),
            "rate_window_events": w.events if w else 0,
            "rate_window_s": _round(w.seconds, 1) if w else None,
            "growth_bytes_per_day": _round(self.growth_bytes_per_day, 0),
            "growth_per_day": _human(self.growth_bytes_per_day),
            "hot_bytes_at_retention": _round(self.hot_bytes_at_retention, 0),
        }

    def to_json(self) -> dict[str, Any]:
        w = self.window
        return {
            "tableBytes": self.table_bytes,
            "tables": [t.to_json() for t in self.tables],
            "growth": {
                "method": f"the log's last {WINDOW_EVENTS:,} events (positions) over the time "
                "from the first of them to now; bytes per event = all tables / the log's rows",
                "windowEvents": w.events if w else 0,
                "windowSeconds": _round(w.seconds, 1) if w else None,
                "lastEventAt": w.last_event_at.isoformat() if w and w.last_event_at else None,
                "logEvents": w.rows if w else 0,
                "eventsPerSecond": _round(self.events_per_s, 3),
                "bytesPerEvent": _round(self.bytes_per_event, 1),
                "bytesPerSecond": _round(self.growth_bytes_per_s, 1),
                "bytesPerDay": _round(self.growth_bytes_per_day, 0),
            },
            "retention": {
                "enabled": self.retention_days is not None,
                "days": self.retention_days,
                "hotBytesAtRetention": _round(self.hot_bytes_at_retention, 0),
            },
        }


def outlook(
    tables: Sequence[TableSize], window: LogWindow | None, retention_days: float | None
) -> Outlook:
    """The numbers, from what was read (pure)."""
    total = sum(t.total_bytes for t in tables)
    per_event = None
    rate = None
    if window is not None:
        if window.rows >= MIN_EVENTS:
            per_event = total / window.rows
        if window.events > 0 and window.seconds > 0:
            rate = window.events / max(window.seconds, 1.0)
    return Outlook(tuple(tables), window, retention_days, per_event, rate)


async def read_tables(conn: asyncpg.Connection) -> list[TableSize]:
    return [
        TableSize(
            str(r["table_name"]),
            int(r["total_bytes"]),
            int(r["heap_bytes"]),
            int(r["index_bytes"]),
            bool(r["unlogged"]),
        )
        for r in await conn.fetch(SQL["storage_tables"])
    ]


async def read_outlook(
    conn: asyncpg.Connection, retention_days: float | None, *, window_events: int = WINDOW_EVENTS
) -> Outlook:
    tables = await read_tables(conn)
    window = None
    if await conn.fetchval(SQL["db_events_exists"]):
        r = await conn.fetchrow(SQL["storage_log_window"], window_events)
        if r is not None:
            estimate = int(r["rows_estimate"] or -1)
            span = int(r["head_position"]) - int(r["first_position"]) + 1
            window = LogWindow(
                events=int(r["head_position"]) - int(r["from_position"]),
                seconds=(r["now"] - r["from_at"]).total_seconds(),
                rows=estimate if estimate > 0 else span,
                last_event_at=r["head_at"],
            )
    return outlook(tables, window, retention_days)


async def log_outlook(storage: StorageRepository, retention_days: float | None) -> None:
    """Log ``storage_outlook`` once: a warning while retention is off (the database keeps
    everything), else info. A failure to read is logged, never raised: it is advice."""
    try:
        seen = await storage.outlook(retention_days)
    except Exception as exc:
        log.warning("storage_outlook_failed", error=type(exc).__name__)
        return
    fields = seen.log_fields()
    if retention_days is None:
        log.warning(
            "storage_outlook",
            **fields,
            advice="retention is off: nothing leaves the database; set HOOKPROOF_RETENTION_DAYS"
            " to archive closed deliveries (docs/retention.md)",
        )
    else:
        log.info("storage_outlook", **fields)


def human_bytes(n: float | None) -> str:
    """``1536`` -> ``1.5 KiB``."""
    if n is None:
        return "unknown"
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(value) < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TiB"  # pragma: no cover


def _human(n: float | None) -> str | None:
    return None if n is None else human_bytes(n)


def _round(x: float | None, digits: int) -> float | None:
    return None if x is None else round(x, digits)
