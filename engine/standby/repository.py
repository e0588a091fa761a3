"""Positions in the primary's WAL: where the primary is after a write, how far a standby has
replayed (``wal_insert_position.sql``, ``standby_replay_position.sql``)."""

from __future__ import annotations

import re

from hookproof.errors import ValidationError

from ..db.queries import ENGINE_QUERIES
from ..db.repository import PoolRepository

__all__ = ["WalPositions", "format_lsn", "parse_lsn"]

SQL = ENGINE_QUERIES.named("wal_insert_position", "standby_replay_position")

_LSN = re.compile(r"^([0-9A-Fa-f]{1,8})/([0-9A-Fa-f]{1,8})$")


def parse_lsn(text: str) -> int:
    """A ``pg_lsn`` (``16/B374D848``) as one integer (comparable)."""
    m = _LSN.match(text.strip())
    if m is None:
        raise ValidationError(
            "a WAL position is two hex numbers joined by '/' (as Hookproof-Write-Position gave)",
            field="Hookproof-Read-After",
            code="invalid_read_position",
        )
    return (int(m.group(1), 16) << 32) | int(m.group(2), 16)


def format_lsn(value: int) -> str:
    """The ``pg_lsn`` text of :func:`parse_lsn`'s integer."""
    return f"{value >> 32:X}/{value & 0xFFFFFFFF:X}"


class WalPositions(PoolRepository):
    """WAL positions read over this repository's pool (the primary's or a standby's)."""

    async def insert_position(self) -> int:
        """The primary's WAL insert position: past every commit that returned before it."""
        return parse_lsn(str(await self.pool.fetchval(SQL["wal_insert_position"])))

    async def replay_position(self) -> int:
        """How far the standby this pool reaches has replayed the primary's WAL."""
        return parse_lsn(str(await self.pool.fetchval(SQL["standby_replay_position"])))
