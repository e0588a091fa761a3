"""The ``hookproof`` command line. Every command honours the HOOKPROOF_* configuration."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from hookproof.config import Settings
from hookproof.errors import ConfigurationError, HookproofError

from .help import add_command

__all__ = ["main"]

#: A command: a coroutine for ``main`` to run, or (the supervisor of ``serve --workers N``,
#: which runs no event loop) the exit code itself.
Handler = Callable[[argparse.Namespace, Settings], Awaitable[int] | int]


# The database modules are imported by the commands that use them, not here: the
# supervisor of ``serve --workers N`` runs this module for the daemon's whole life and
# must stay light (:mod:`.serve`).


async def cmd_migrate(args: argparse.Namespace, settings: Settings) -> int:
    from ..db.database import connect_pool, resolve_database
    from ..db.migrate import migrate
    from ..keys.master import locate_master_key
    from ..keys.master_check import record_master_key, verify_master_key

    target = resolve_database(settings)
    try:
        pool = await connect_pool(target.url, max_size=1)  # errors: StoreError, with a code
        try:
            master = locate_master_key(settings)  # the key, checked before anything is written
            print(f"hookproof: {master.describe()}", file=sys.stderr, flush=True)
            async with pool.acquire() as conn:
                record = await verify_master_key(conn, master)
                applied = await migrate(conn)
                if record:
                    await record_master_key(conn, master)
        finally:
            await pool.close()
    finally:
        target.close()
    for number, name in applied:
        print(f"applied {number:04d}_{name}")
    print(f"database: {target.describe()}; {len(applied)} migration(s) applied, schema current")
    return 0


async def cmd_db_status(args: argparse.Namespace, settings: Settings) -> int:
    import asyncio

    from ..db.database import connect_one, resolve_database
    from ..db.migrate import pending_migrations
    from ..db.queries import ENGINE_QUERIES
    from ..db.storage import read_outlook, read_tables

    SQL = ENGINE_QUERIES.named(
        "db_server_version",
        "db_events_exists",
        "audit_event_count",
        "master_key_tables",
        "master_key_check_select",
    )
    target = resolve_database(settings)
    sampled = None
    try:
        conn = await connect_one(target.url)
        try:
            pending = await pending_migrations(conn)
            version = await conn.fetchval(SQL["db_server_version"])
            events = 0
            if await conn.fetchval(SQL["db_events_exists"]):
                events = await conn.fetchval(SQL["audit_event_count"])
            check = None  # the master key the database expects (engine/keys/master_check.py)
            if (await conn.fetchrow(SQL["master_key_tables"]))["master_key_check"]:
                check = await conn.fetchrow(SQL["master_key_check_select"])
            seen = await read_outlook(conn, settings.retention_days)
            if args.sample > 0:  # measured: the tables' bytes now and ``--sample`` s later
                before = sum(t.total_bytes for t in seen.tables)
                await asyncio.sleep(args.sample)
                after = sum(t.total_bytes for t in await read_tables(conn))
                sampled = {"seconds": args.sample, "bytesPerSecond": (after - before) / args.sample}
        finally:
            await conn.close()
    finally:
        target.close()
    status = {
        "database": "embedded" if target.embedded else "external",
        "description": target.describe(),
        "serverVersion": version,
        "pendingMigrations": [f"{n:04d}_{name}" for n, name in pending],
        "events": events,
        "masterKey": None
        if check is None
        else {"fingerprint": check["fingerprint"], "recordedAt": check["created_at"].isoformat()},
        **seen.to_json(),
    }
    if sampled is not None:
        status["growth"]["sampled"] = sampled
    if args.json:
        print(json.dumps(status))
    else:
        print(f"database: {status['description']} (PostgreSQL {version})")
        print(f"pending migrations: {len(pending)}; events in the log: {events}")
        expects = status["masterKey"]
        print(
            "master key: no check value recorded yet"
            if expects is None
            else f"master key: the database expects {expects['fingerprint']}"
            f" (recorded {expects['recordedAt']})"
        )
        _print_storage(seen, sampled)
    return 0


def _print_storage(seen: Any, sampled: dict[str, float] | None, top: int = 12) -> None:
    from ..db.storage import WINDOW_EVENTS, human_bytes

    print(f"size: {human_bytes(seen.table_bytes)} in {len(seen.tables)} tables")
    for t in seen.tables[:top]:
        print(
            f"  {t.table:<32} {human_bytes(t.total_bytes):>11}   heap {human_bytes(t.heap_bytes)},"
            f" indexes {human_bytes(t.index_bytes)}, other {human_bytes(t.other_bytes)}"
            + (" (unlogged)" if t.unlogged else "")
        )
    rest = seen.tables[top:]
    if rest:
        together = human_bytes(sum(t.total_bytes for t in rest))
        print(f"  ... {len(rest)} more tables, {together} together")
    w = seen.window
    if w is None or seen.events_per_s is None:
        print("growth: unknown (the log is empty)")
    else:
        per_event = (
            f"{human_bytes(seen.bytes_per_event)} per event"
            if seen.bytes_per_event is not None
            else "bytes per event unknown (too few events)"
        )
        window = min(w.events, WINDOW_EVENTS)
        print(
            f"growth: {seen.events_per_s:.2f} events/s (the log's last {window:,} events over"
            f" the {w.seconds:,.0f} s since the first of them); {per_event}"
            + (
                f" -> {human_bytes(seen.growth_bytes_per_s)}/s,"
                f" {human_bytes(seen.growth_bytes_per_day)}/day"
                if seen.growth_bytes_per_s is not None
                else ""
            )
        )
    if sampled is not None:
        print(
            f"growth measured: {human_bytes(sampled['bytesPerSecond'])}/s over"
            f" {sampled['seconds']:g} s (the tables' bytes, twice)"
        )
    if seen.retention_days is None:
        print(
            "retention: off (HOOKPROOF_RETENTION_DAYS unset): nothing leaves the database; set it"
            " to archive closed deliveries (docs/retention.md)"
        )
    else:
        print(
            f"retention: {seen.retention_days:g} days: closed deliveries are archived; the hot"
            f" tables level off near {human_bytes(seen.hot_bytes_at_retention)}"
        )


def _add_json(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="machine-readable output")


def installed_version() -> str:
    """The version of the installed distribution (the package's own when run from a tree)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("hookproof")
    except PackageNotFoundError:
        from hookproof import __version__

        return __version__


def build_parser(*, serve_only: bool = False) -> argparse.ArgumentParser:
    """The whole CLI; ``serve_only``: just ``serve`` (its supervisor stays light, see
    :mod:`.serve`)."""
    parser = argparse.ArgumentParser(
        prog="hookproof",
        description="hookproof, a webhook delivery engine that records evidence. Every command"
        " honours the HOOKPROOF_* configuration (README, Configuration) and says on stderr"
        " which database it uses.",
    )
    parser.add_argument("--version", action="version", version=f"hookproof {installed_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    if serve_only:
        from .serve import register as register_serve

        register_serve(sub)
        return parser

    p = add_command(sub, "migrate", help="apply the SQL migrations (idempotent)")
    p.set_defaults(handler=cmd_migrate)

    db = add_command(sub, "db", help="database commands").add_subparsers(
        dest="db_cmd", required=True
    )
    p = add_command(
        db, "status", help="which Postgres is in use, its schema state, size per table and growth"
    )
    _add_json(p)
    p.add_argument(
        "--sample",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="also measure the growth: the tables' size now and SECONDS later",
    )
    p.set_defaults(handler=cmd_db_status)

    from . import commands as cli_commands

    cli_commands.register(sub, _add_json)
    from . import keys as cli_keys

    cli_keys.register(sub, _add_json)
    from . import audit as cli_audit

    cli_audit.register(sub, _add_json)
    from . import rollouts as cli_rollouts

    cli_rollouts.register(sub, _add_json)
    from . import archive as cli_archive

    cli_archive.register(sub, _add_json)
    from . import deliveries as cli_deliveries

    cli_deliveries.register(sub, _add_json)
    from . import listen as cli_listen

    cli_listen.register(sub, _add_json)
    from . import destinations as cli_destinations

    cli_destinations.register(sub, _add_json)

    from . import dev_endpoint

    dev_endpoint.register(sub)
    return parser


#: Optional packages that structlog imports when they are installed (the test tools bring
#: ``rich`` and ``greenlet``): its console renderer and its deprecated greenlet-local
#: context. hookproof writes JSON lines only, so a command never loads them (~7 MB per
#: process; the daemon is several processes).
_UNUSED_BY_STRUCTLOG = ("rich", "better_exceptions", "colorama", "greenlet")


def _skip_unused_imports() -> None:
    if "structlog" not in sys.modules:  # only before structlog looked for them
        for name in _UNUSED_BY_STRUCTLOG:
            sys.modules.setdefault(name, None)  # type: ignore[arg-type]


def main(argv: list[str] | None = None) -> int:
    _skip_unused_imports()
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(serve_only=argv[:1] == ["serve"])
    args = parser.parse_args(argv)
    try:
        settings = Settings.from_env()
        handler: Handler = args.handler
        outcome = handler(args, settings)
        return outcome if isinstance(outcome, int) else run(outcome)
    except HookproofError as exc:
        print(f"error [{exc.code}]: {exc.detail}", file=sys.stderr, flush=True)
        return exc.exit_code if isinstance(exc, ConfigurationError) else 2
    except KeyboardInterrupt:
        return 130


def run(coro: Awaitable[Any]) -> Any:
    import asyncio

    return asyncio.run(coro)  # type: ignore[arg-type]


if __name__ == "__main__":
    sys.exit(main())
