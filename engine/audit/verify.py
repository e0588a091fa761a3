"""Hash-chain verification of the whole log in one pass, and the append-only guards.

The log is read in keyset pages ordered by ``(stream_id, stream_version)`` (the unique index),
so each stream's chain is checked as its rows stream by, with one query per page rather than
one per stream.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import asyncpg

from hookproof.engine.db.queries import ENGINE_QUERIES
from hookproof.events import BrokenLink

__all__ = ["GUARDS", "VerifyReport", "verify_log"]

GUARDS = ("events_refuse_truncate", "events_refuse_update_delete")

SQL = ENGINE_QUERIES.named("audit_verify_page", "audit_guards")


@dataclass
class VerifyReport:
    events: int = 0
    streams: int = 0
    broken: list[BrokenLink] = field(default_factory=list)
    guards_missing: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.broken and not self.guards_missing

    def to_json(self) -> dict[str, Any]:
        return {
            "events": self.events,
            "streams": self.streams,
            "broken": [
                {"streamId": b.stream_id, "streamVersion": b.stream_version, "problem": b.problem}
                for b in self.broken
            ],
            "appendOnlyGuardsMissing": self.guards_missing,
            "ok": self.ok,
        }


async def verify_log(
    conn: asyncpg.Connection,
    *,
    page_size: int = 20_000,
    progress: Callable[[int], None] | None = None,
) -> VerifyReport:
    """Check every stream's chain (first broken link per stream) and the append-only guards."""
    report = VerifyReport()
    page_sql = SQL["audit_verify_page"]
    sha256 = hashlib.sha256
    stream: str | None = None
    expected_version = 1
    expected_prev: bytes | None = None
    broken = False
    after: tuple[str, int] = ("", 0)
    while True:
        rows = await conn.fetch(page_sql, after[0], after[1], page_size)
        if not rows:
            break
        for sid, version, eid, type_, schema, data, meta, prev, digest in rows:
            if sid != stream:
                stream, expected_version, expected_prev, broken = sid, 1, None, False
                report.streams += 1
            if broken:
                continue
            problem = None
            if version != expected_version:
                problem = "version_gap"
            elif (prev or None) != expected_prev:
                problem = "prev_hash_mismatch"
            else:
                h = sha256(prev) if prev else sha256()
                h.update(f"{sid}\0{version}\0{eid}\0{type_}\0{schema}\0".encode())
                h.update(data)
                h.update(b"\0")
                h.update(meta)
                if h.digest() != digest:
                    problem = "hash_mismatch"
            if problem is not None:
                report.broken.append(BrokenLink(sid, version, problem))
                broken = True
                continue
            expected_prev = bytes(digest)
            expected_version = version + 1
        report.events += len(rows)
        last = rows[-1]
        after = (last[0], last[1])
        if progress is not None:
            progress(report.events)
        if len(rows) < page_size:
            break
    guards = await conn.fetch(SQL["audit_guards"])
    enabled = {g["tgname"] for g in guards if g["enabled"]}
    report.guards_missing = [g for g in GUARDS if g not in enabled]
    return report
