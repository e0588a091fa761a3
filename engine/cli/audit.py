"""``hookproof audit ...`` (timelines, as-of views, chain verification) and ``hookproof gates``."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

from hookproof.config import Settings

from ..archive.verify import verify_archive
from ..audit import (
    delivery_timeline,
    event_timeline,
    gate_report,
    gates_failed,
    parse_as_of,
    subscription_timeline,
    verify_log,
)
from ..audit.repository import AuditRepository
from ..audit.timeline import Timeline
from .commands import Progress
from .context import Context
from .help import add_command

__all__ = ["register", "render_timeline"]


def _clip(text: str | None, width: int) -> str:
    text = "-" if text is None or text == "" else str(text)
    return text if len(text) <= width else text[: width - 1] + "…"


def render_timeline(t: Timeline, indent: str = "") -> list[str]:
    """A readable table: one line per event, then the state it adds up to."""
    when = f" as of {t.as_of.isoformat()}" if t.as_of else ""
    lines = [f"{indent}{t.kind} {t.id}{when}: {len(t.entries)} event(s)"]
    header = (
        f"{'recorded at (UTC)':<26} {'v':>3} {'type':<32} {'actor':<18} {'gen':>3} "
        f"{'key':<14} {'outcome':<48} evidence"
    )
    lines.append(indent + "  " + header)
    for e in t.entries:
        lines.append(
            indent
            + "  "
            + f"{e.recorded_at.astimezone().strftime('%Y-%m-%d %H:%M:%S.%f'):<26} "
            + f"{e.version:>3} {_clip(e.type, 32):<32} {_clip(e.actor, 18):<18} "
            + f"{e.generation if e.generation is not None else '-':>3} "
            + f"{_clip(e.key_id, 14):<14} {_clip(e.outcome, 48):<48} {e.evidence}"
        )
    state = t.state or {}
    if t.kind == "delivery":
        ev = state.get("evidence") or {}
        lines.append(
            f"{indent}  => state {state.get('state')}, attempt {state.get('attempt')}, "
            f"generation {state.get('generation')}, endpoint {ev.get('endpoint')}, "
            f"application {ev.get('application')}"
        )
    elif t.kind == "subscription":
        lines.append(
            f"{indent}  => state {state.get('state')}, generation {state.get('generation')}, "
            f"{state.get('evidence')}, endpoint {state.get('endpoint')}"
        )
    elif t.kind == "rollout":
        lines.append(
            f"{indent}  => state {state.get('state')}, stage {state.get('stage')} "
            f"{state.get('percent')}%, target {state.get('target')}, "
            f"pause reason {state.get('pauseReason') or '-'}"
        )
    else:
        lines.append(
            f"{indent}  => topic {state.get('topic')}, digest {state.get('payloadDigest')}, "
            f"{len(t.children)} delivery(ies), {state.get('payloadConflicts')} conflict(s)"
        )
        for child in t.children:
            lines.append("")
            lines.extend(render_timeline(child, indent + "  "))
    return lines


async def _timeline(args: argparse.Namespace, settings: Settings, kind: str) -> int:

    as_of = parse_as_of(args.as_of, "--as-of")
    async with Context(settings, reading=True) as ctx:
        store = ctx.store  # it reads archived streams back too
        if kind == "delivery":
            t = await delivery_timeline(store, args.id, as_of=as_of)
        elif kind == "subscription":
            t = await subscription_timeline(store, args.id, as_of=as_of)
        elif kind == "rollout":
            from ..audit.rollout_timeline import rollout_timeline

            t = await rollout_timeline(store, args.id, as_of=as_of)
        else:
            t = await event_timeline(store, args.id, tenant_id=args.tenant, as_of=as_of)
    if args.json:
        print(json.dumps(t.to_json()))
    else:
        print("\n".join(render_timeline(t)))
    return 0


async def cmd_audit_delivery(args: argparse.Namespace, settings: Settings) -> int:
    return await _timeline(args, settings, "delivery")


async def cmd_audit_subscription(args: argparse.Namespace, settings: Settings) -> int:
    return await _timeline(args, settings, "subscription")


async def cmd_audit_rollout(args: argparse.Namespace, settings: Settings) -> int:
    return await _timeline(args, settings, "rollout")


async def cmd_audit_event(args: argparse.Namespace, settings: Settings) -> int:
    return await _timeline(args, settings, "event")


async def cmd_audit_verify(args: argparse.Namespace, settings: Settings) -> int:

    async with Context(settings, reading=True) as ctx:
        audit = ctx.repository(AuditRepository)
        async with audit.reading() as conn:
            total = await audit.event_count(conn)
            progress = Progress("verify", total)
            report = await verify_log(conn, progress=progress)
            progress.finish()
            archive = await verify_archive(conn, settings.archive_dir)
    ok = report.ok and archive.ok
    out: dict[str, Any] = report.to_json()
    out["archive"] = archive.to_json()
    out["ok"] = ok
    if args.json:
        print(json.dumps(out))
    else:
        print(f"checked {report.events} event(s) in {report.streams} stream(s)")
        print(
            f"checked {archive.segments} archive segment(s) with {archive.events} event(s) "
            f"in {settings.archive_dir}"
        )
        for b in report.broken:
            print(f"BROKEN {b.stream_id} at version {b.stream_version}: {b.problem}")
        for g in report.guards_missing:
            print(f"BROKEN append-only guard {g} is missing or disabled")
        for p in archive.problems:
            print(f"BROKEN segment {p.segment_id} ({p.file}): {p.problem} {p.detail}".rstrip())
        print("ok" if ok else "FAILED")
    return 0 if ok else 1


async def cmd_gates(args: argparse.Namespace, settings: Settings) -> int:

    since = parse_as_of(args.since, "--since")
    async with Context(settings) as ctx:
        # a session of its own: archived segments may be read into a temporary table
        async with ctx.session() as conn:
            results = await gate_report(conn, since, archive_dir=settings.archive_dir)
    failed = gates_failed(results)
    if args.json:
        print(
            json.dumps(
                {
                    "since": since.isoformat() if since else None,
                    "gates": [g.to_json() for g in results],
                    "ok": not failed,
                }
            )
        )
    else:
        scope = f"since {since.isoformat()}" if since else "whole log"
        print(f"release gates ({scope})")
        for g in results:
            value = g.shown()
            print(f"  {g.status.upper():<12} {g.name:<40} {value!s:>10}  (needs {g.threshold})")
            print(f"               {g.title}; {json.dumps(g.detail, default=str)}")
            for ex in g.examples[:5]:
                print(f"               - {ex}")
        print("FAILED" if failed else "no gate failed")
    return 1 if failed else 0


def register(
    sub: argparse._SubParsersAction,  # type: ignore[type-arg]
    add_json: Callable[[argparse.ArgumentParser], None],
) -> None:
    audit = add_command(sub, "audit", help="event-replay auditing")
    asub = audit.add_subparsers(dest="audit_cmd", required=True)
    p = add_command(
        asub, "verify", help="check every stream's hash chain and the append-only guards"
    )
    add_json(p)
    p.set_defaults(handler=cmd_audit_verify)
    for kind, handler in (
        ("delivery", cmd_audit_delivery),
        ("subscription", cmd_audit_subscription),
        ("event", cmd_audit_event),
        ("rollout", cmd_audit_rollout),
    ):
        p = add_command(asub, kind, help=f"a {kind}'s timeline from the log")
        p.add_argument("id", help=f"{kind} id")
        p.add_argument(
            "--as-of",
            metavar="TIME",
            help="the state at a past moment (ISO 8601), from events recorded up to then",
        )
        if kind == "event":  # event ids are unique per tenant, not globally
            p.add_argument(
                "--tenant",
                metavar="TENANT_ID",
                help="the tenant whose event this is (required when the id is used by several)",
            )
        add_json(p)
        p.set_defaults(handler=handler)

    p = add_command(sub, "gates", help="release gates computed from the log")
    p.add_argument("--since", metavar="TIME", help="only facts recorded since (ISO 8601)")
    add_json(p)
    p.set_defaults(handler=cmd_gates)
