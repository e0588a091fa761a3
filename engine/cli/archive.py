"""``hookproof archive run|list``: retention of closed streams (DESIGN.md section 11)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from hookproof.config import Settings

from ..audit import parse_as_of
from ..audit.repository import AuditRepository
from .context import Context
from .help import add_command

__all__ = ["register"]

DEFAULT_RETENTION_DAYS = 30.0


def default_cutoff(settings: Settings, now: datetime | None = None) -> datetime:
    """Now minus ``HOOKPROOF_RETENTION_DAYS`` (30 when unset)."""
    days = settings.retention_days
    if days is None:
        days = DEFAULT_RETENTION_DAYS
    return (now or datetime.now(UTC)) - timedelta(days=days)


async def cmd_archive_run(args: argparse.Namespace, settings: Settings) -> int:
    cutoff = parse_as_of(args.before, "--before") if args.before else default_cutoff(settings)
    assert cutoff is not None
    async with Context(settings, sealed=True) as ctx:
        result = await ctx.archiver().run(cutoff)
    out = result.to_json()
    if args.json:
        print(json.dumps(out))
    else:
        print(f"archive run (closed streams last changed before {cutoff.isoformat()})")
        if result.busy:
            print("another archive run holds the lock; nothing done")
        for seg in result.resumed:
            print(f"  resumed {seg} (rows removed now)")
        for name in result.orphans_removed:
            print(f"  removed unanchored file {name}")
        for r in result.refused:
            print(f"  REFUSED to finish {r['segment']}: {r['problem']} ({r['file']})")
        print(
            f"  {len(result.segments)} segment(s), {result.streams} stream(s), "
            f"{result.events} event(s) archived; {result.removed} row(s) removed from the hot "
            f"log in {result.seconds:.2f}s"
        )
        if result.skipped:
            print(f"  kept hot: {json.dumps(result.skipped)}")
    return 1 if result.refused else 0


def _iso(v: Any) -> Any:
    return v.isoformat() if isinstance(v, datetime) else v


async def cmd_archive_list(args: argparse.Namespace, settings: Settings) -> int:

    async with Context(settings) as ctx:
        rows = await ctx.repository(AuditRepository).archive_segments()
    items = [
        {
            "segmentId": r["segment_id"],
            "file": str(settings.archive_dir / r["file_name"]),
            "fileSha256": r["file_sha256"],
            "fileSize": r["file_size"],
            "manifestDigest": r["manifest_digest"],
            "keyId": r["key_id"],
            "streams": r["streams"],
            "events": r["events"],
            "firstRecordedAt": _iso(r["first_recorded_at"]),
            "lastRecordedAt": _iso(r["last_recorded_at"]),
            "cutoff": _iso(r["cutoff"]),
            "anchorPosition": r["anchor_position"],
            "anchoredAt": _iso(r["anchored_at"]),
            "complete": r["completed_at"] is not None,
        }
        for r in rows
    ]
    if args.json:
        print(json.dumps({"archiveDir": str(settings.archive_dir), "segments": items}))
    else:
        print(f"archive in {settings.archive_dir}: {len(items)} segment(s)")
        for i in items:
            state = "complete" if i["complete"] else "REMOVAL PENDING"
            print(
                f"  {i['segmentId']}  {i['streams']:>6} streams {i['events']:>8} events  "
                f"{i['firstRecordedAt']} .. {i['lastRecordedAt']}  {state}"
            )
    return 0


def register(
    sub: argparse._SubParsersAction,  # type: ignore[type-arg]
    add_json: Callable[[argparse.ArgumentParser], None],
) -> None:
    archive = add_command(sub, "archive", help="retention: move closed streams to segment files")
    asub = archive.add_subparsers(dest="archive_cmd", required=True)
    p = add_command(asub, "run", help="archive closed streams last changed before TIME")
    p.add_argument(
        "--before",
        metavar="TIME",
        help="cutoff (ISO 8601); default now minus HOOKPROOF_RETENTION_DAYS (30)",
    )
    add_json(p)
    p.set_defaults(handler=cmd_archive_run)
    p = add_command(asub, "list", help="the archived segments")
    add_json(p)
    p.set_defaults(handler=cmd_archive_list)
