"""Sub-commands beyond migrate/db: serve, tenant, projections (audit: ``cli.audit``)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import Any

from hookproof.config import Settings
from hookproof.events import Position
from hookproof.projections import rebuild

from ..audit.repository import AuditRepository
from ..delivery.log_repository import DeliveryLogKeys
from ..recording.projections_runner import catch_up
from ..recording.registry import projections_by_name
from .context import Context
from .help import add_command

__all__ = ["register"]


class Progress:
    """A plain progress line on stderr (only when stderr is a terminal or forced)."""

    def __init__(self, label: str, total: int | None, *, enabled: bool | None = None) -> None:
        self.label = label
        self.total = total
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.started = time.perf_counter()
        self._last = 0.0

    def __call__(self, done: int) -> None:
        now = time.perf_counter()
        if not self.enabled or now - self._last < 0.2:
            return
        self._last = now
        rate = done / max(now - self.started, 1e-9)
        if self.total:
            width = 30
            filled = int(width * min(done / self.total, 1.0))
            bar = "#" * filled + "-" * (width - filled)
            sys.stderr.write(f"\r{self.label} [{bar}] {done}/{self.total} {rate:,.0f}/s")
        else:
            sys.stderr.write(f"\r{self.label} {done} {rate:,.0f}/s")
        sys.stderr.flush()

    def finish(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")


async def cmd_projections_rebuild(args: argparse.Namespace, settings: Settings) -> int:
    """Rebuild (or ``--verify``) projections. ``--verify`` with ``HOOKPROOF_READ_DATABASE_URL``
    reads the hot standby, read-only: nothing is caught up first (a projector behind is a lag),
    and an unlogged projection (the stream catalogue: a standby holds none of its rows) is
    verified on the primary."""
    registry = projections_by_name()
    names = args.names or sorted(registry)
    unknown = [n for n in names if n not in registry]
    if unknown:
        print(f"unknown projection(s): {', '.join(unknown)}; known: {', '.join(sorted(registry))}")
        return 2
    failed = False
    on_primary: list[str] = []
    async with Context(settings, reading=args.verify) as ctx:
        for name in names:
            if ctx.on_standby and registry[name].unlogged:
                on_primary.append(name)
                continue
            failed = await _rebuild_one(ctx, name, args, writable=not ctx.on_standby) or failed
    if on_primary:
        async with Context(settings) as ctx:
            for name in on_primary:
                failed = await _rebuild_one(ctx, name, args, writable=True) or failed
    return 1 if failed else 0


async def _rebuild_one(
    ctx: Context, name: str, args: argparse.Namespace, *, writable: bool
) -> bool:
    """Rebuild or verify one projection and print its line; True when it differs."""
    projection = projections_by_name()[name]
    store = ctx.store
    total = await ctx.repository(AuditRepository).event_count()
    caught_up: int | None = None
    if args.verify and not projection.inline and writable:
        # kept in batches by the daemon: compare it caught up, not a moment of its lag
        # (what it had not applied yet is reported, never counted as a difference)
        caught_up = await catch_up(store, [projection])
    progress = Progress(f"rebuild {name}", total)
    result = await rebuild(
        store, projection, verify=args.verify, progress=progress, inline=projection.inline
    )
    progress.finish()
    differences = result.differences
    if name == "deliveries":  # the delivery log's keys follow the ledger (migration 1000)
        keys = ctx.repository(DeliveryLogKeys)
        if args.verify:
            differences = [*(differences or []), *await keys.drift()]
        else:
            await keys.settle()
    line: dict[str, Any] = {
        "projection": name,
        "events": result.events,
        "rows": result.rows,
        "seconds": round(result.seconds, 3),
        "eventsPerSecond": round(result.rate),
    }
    lag = result.lag
    if args.verify:
        line["differences"] = differences
        line["caughtUp"] = caught_up
        line["database"] = "standby" if ctx.on_standby else "primary"
        # a projector behind the log is a lag, never a difference: exit 0
        line["lag"] = (
            None
            if lag is None
            else {
                "events": lag.events,
                "checkpoint": _position(lag.checkpoint),
                "head": _position(lag.head),
            }
        )
    if args.json:
        print(json.dumps(line))
    else:
        verb = "verified" if args.verify else "rebuilt"
        where = " on the standby" if ctx.on_standby else ""
        print(
            f"{verb} {name}{where}: {result.events} events -> {result.rows} rows in "
            f"{result.seconds:.2f}s ({result.rate:,.0f} events/s)"
        )
        if caught_up:
            print(
                f"  LAG the live projection was {caught_up} event(s) behind the log: "
                "applied them before comparing"
            )
        if lag is not None and lag.events:
            print(
                f"  LAG the live projection is {lag.events} event(s) behind the log "
                f"head ({_position(lag.head)}): compared at its checkpoint "
                f"{_position(lag.checkpoint)}; the projector applies the rest"
            )
        for d in differences or []:
            print(f"  DIFF {d}")
    return bool(args.verify and differences)


def _position(p: Position) -> str:
    """A log position as ``<transaction>/<global position>``."""
    return f"{p.tx_id}/{p.global_position}"


async def cmd_tenant_list(args: argparse.Namespace, settings: Settings) -> int:
    from ..portal.tenant_repository import TenantRepository

    async with Context(settings) as ctx:
        rows = await ctx.repository(TenantRepository).list_tenants()
    items = [
        {
            "tenantId": r["tenant_id"],
            "name": r["name"],
            "createdAt": r["created_at"].isoformat(),
            "activeTokens": list(r["tokens"]),
            "subscriptions": r["subscriptions"],
        }
        for r in rows
    ]
    if args.json:
        print(json.dumps({"items": items}))
        return 0
    if not items:
        print("no tenants yet: hookproof tenant create NAME")
    for t in items:
        tokens = ", ".join(t["activeTokens"]) or "none active"
        print(
            f"{t['tenantId']}  {t['name']}  created {t['createdAt'][:19]}Z"
            f"  subscriptions {t['subscriptions']}  tokens: {tokens}"
        )
    return 0


async def cmd_tenant_create(args: argparse.Namespace, settings: Settings) -> int:
    async with Context(settings) as ctx:
        issued = await ctx.tenants().create(args.name, actor="cli")
    if args.json:
        print(json.dumps({"tenantId": issued.tenant_id, "token": issued.token}))
    else:
        print(f"tenant {issued.tenant_id} created ({args.name}); API token (shown once):")
        print(issued.token)
    return 0


async def cmd_tenant_revoke(args: argparse.Namespace, settings: Settings) -> int:
    async with Context(settings) as ctx:
        revoked = await ctx.tenants().revoke_token(args.token_id, actor="cli")
    ended = len(revoked.sessions_ended)
    print(
        json.dumps(
            {"tenantId": revoked.tenant_id, "revoked": args.token_id, "sessionsEnded": ended}
        )
        if args.json
        else f"revoked {args.token_id}; {ended} portal session(s) it started ended"
    )
    return 0


async def cmd_tenant_portal_session(args: argparse.Namespace, settings: Settings) -> int:
    """The operator starts a portal session for a tenant's consumer (creator ``operator``):
    it outlives the revocation of any tenant token."""
    from hookproof.schemas.api import PortalSessionCreate

    from ..consumers.service import ConsumerService
    from ..portal.service import PortalService
    from ..portal.sessions import OPERATOR_CREATOR

    caps = {} if args.capabilities is None else {"capabilities": args.capabilities.split(",")}
    body = PortalSessionCreate(ttl_seconds=args.ttl_seconds, **caps)
    async with Context(settings) as ctx:
        portal = PortalService(ctx.store, settings, ConsumerService(ctx.store))
        out = await portal.start(
            args.tenant_id,
            args.consumer_id,
            body,
            actor="operator:cli",
            creator=OPERATOR_CREATOR,
        )
    if args.json:
        print(json.dumps(out))
    else:
        print(f"portal session {out['sessionId']} until {out['expiresAt']}; link (shown once):")
        print(out["url"])
    return 0


async def cmd_demo(args: argparse.Namespace, settings: Settings) -> int:
    import logging
    import tempfile
    import warnings
    from pathlib import Path

    from ..observe.logging import configure_logging
    from .demo import run_demo

    # the demo's story goes to stdout; the engine's log lines (warnings: the egress allowances
    # the demo needs, and anything else) to a file the report names, never into the report
    log = Path(tempfile.gettempdir()) / f"hookproof-demo-{time.strftime('%Y%m%d-%H%M%S')}.log"
    with log.open("a", encoding="utf-8") as file:
        configure_logging(logging.WARNING, file=file)
        logging.basicConfig(stream=file, level=logging.WARNING, force=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pgserver's platformdirs notice on servers
            import pgserver  # noqa: F401
        return await run_demo(events=args.events, keep=args.keep, log=log)


def register(
    sub: argparse._SubParsersAction,  # type: ignore[type-arg]
    add_json: Callable[[argparse.ArgumentParser], None],
) -> None:
    p = add_command(
        sub,
        "demo",
        help="the whole evidence ladder on this machine, in a minute",
        description="Embedded Postgres, the engine and local HTTPS subscribers on the SDK:"
        " registration and challenge, deliveries, a key rotation, a rollout, two consumers,"
        " the evidence ladder and the release gates; then everything stops (or, with --keep,"
        " stays up to explore).",
    )
    p.add_argument("--events", type=int, default=10, help="events per phase (default 10)")
    p.add_argument(
        "--keep",
        action="store_true",
        help="keep the daemon running afterwards, printing the console address, the tenant"
        " token and the whole portal link; Ctrl-C stops it",
    )
    p.set_defaults(handler=cmd_demo)

    from .serve import register as register_serve

    register_serve(sub)

    tenant = add_command(sub, "tenant", help="tenants and API tokens")
    tsub = tenant.add_subparsers(dest="tenant_cmd", required=True)
    p = add_command(
        tsub, "list", help="the tenants: id, name, active token ids (never a secret), subscriptions"
    )
    add_json(p)
    p.set_defaults(handler=cmd_tenant_list)
    p = add_command(tsub, "create", help="create a tenant; prints its API token once")
    p.add_argument("name")
    add_json(p)
    p.set_defaults(handler=cmd_tenant_create)
    p = add_command(tsub, "revoke-token", help="revoke an API token by its id")
    p.add_argument("token_id")
    add_json(p)
    p.set_defaults(handler=cmd_tenant_revoke)
    p = add_command(
        tsub,
        "portal-session",
        help="start a portal session for a tenant's consumer as the operator; prints its link",
    )
    p.add_argument("tenant_id")
    p.add_argument("consumer_id")
    p.add_argument("--ttl-seconds", type=int, default=3600, help="60..86400 (default 3600)")
    p.add_argument("--capabilities", help="comma-separated subset of read,manage,replay")
    add_json(p)
    p.set_defaults(handler=cmd_tenant_portal_session)

    proj = add_command(sub, "projections", help="projection maintenance")
    psub = proj.add_subparsers(dest="proj_cmd", required=True)
    p = add_command(psub, "rebuild", help="rebuild projections from the log")
    p.add_argument("names", nargs="*", help="projection names (default: all)")
    p.add_argument("--verify", action="store_true", help="compare with the live tables, no swap")
    add_json(p)
    p.set_defaults(handler=cmd_projections_rebuild)
