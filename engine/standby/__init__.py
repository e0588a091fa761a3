"""Reads on a hot standby (``HOOKPROOF_READ_DATABASE_URL``): the router that picks the side
answering a read, and the WAL positions it compares (docs/standby.md)."""

from .repository import WalPositions, format_lsn, parse_lsn
from .router import ReadRouter, ReadSide

__all__ = ["ReadRouter", "ReadSide", "WalPositions", "format_lsn", "parse_lsn"]
