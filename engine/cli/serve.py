"""``hookproof serve``: kept light, because the supervisor of ``serve --workers N`` is this
process for the daemon's whole life and only watches its children: it imports neither the
engine (:mod:`..runtime.daemon` is imported by the process that serves) nor the database driver, the
migrations (a short-lived child applies them) or an event loop. ``hookproof.engine.cli``
builds only this sub-command's parser for ``serve``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Coroutine
from typing import Any

from hookproof.config import Settings, default_workers
from hookproof.errors import ConfigurationError

from .help import add_command

__all__ = ["cmd_serve", "register"]

#: structlog imports asyncio, and asyncio loads the TLS libraries when it can (~4 MB): the
#: supervisor makes no connection, so it never loads them.
_NOT_IN_SUPERVISOR = ("ssl",)


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int | Coroutine[Any, Any, int]:
    """The supervisor of ``--workers N`` runs here, synchronously (no event loop: see
    :mod:`..runtime.workers`); a single daemon or a worker is a coroutine for ``main`` to run."""
    if args.workers is not None and args.workers < 1:
        raise ConfigurationError(
            f"--workers {args.workers}: must be at least 1 (leave it and HOOKPROOF_WORKERS unset"
            " for one per core)",
            code="workers_invalid",
            field="--workers",
        )
    workers = default_workers(args.workers if args.workers is not None else settings.workers)
    supervisor = args.worker_index is None and workers > 1
    if args.worker_index is None:  # the children share the port (SO_REUSEPORT): not them
        from ..runtime.listen_check import check_listen_free

        check_listen_free(settings.listen_host, settings.listen_port)
    if supervisor:
        for name in _NOT_IN_SUPERVISOR:
            sys.modules.setdefault(name, None)  # type: ignore[arg-type]
    from ..observe.logging import configure_logging

    configure_logging()
    if args.worker_index is not None:  # one child of ``serve --workers N``
        return _serve_worker(args, settings)
    leave = _join(settings)
    if supervisor:
        try:
            return _supervise(settings, workers)
        finally:
            leave()
    return _serve_one(settings, leave)


def _join(settings: Settings) -> Callable[[], None]:
    """On the embedded database: which running daemon this one joins (refused when their
    egress settings differ: :mod:`..runtime.peers`)."""
    if settings.database_url:
        return lambda: None
    import structlog

    from ..runtime.peers import join_embedded

    log = structlog.get_logger("hookproof.serve")
    return join_embedded(settings, log.info)


def _supervise(settings: Settings, workers: int) -> int:
    from ..db.database import resolve_database
    from ..runtime.workers import migrate_in_child, supervise

    target = resolve_database(settings)  # the embedded server lives as long as this process
    print(f"hookproof: database: {target.describe()}", file=sys.stderr, flush=True)
    # the children get the embedded database's URL: its data dir (where its master key is)
    # is named to them too, absolute, as the one a URL of their own would not imply
    extra = {"HOOKPROOF_DATA_DIR": str(settings.data_dir.absolute())} if target.embedded else {}
    try:
        code = migrate_in_child(target.url, extra)  # once, before any child starts
        if code != 0:
            return code

        def all_ready() -> None:
            address = f"{settings.listen_host}:{settings.listen_port}"
            print(
                f"hookproof serving on http://{address} ({workers} workers; {target.describe()})",
                flush=True,
            )

        return supervise(workers, target.url, ready=all_ready, extra_env=extra)
    finally:
        target.close()


async def _serve_one(settings: Settings, leave: Callable[[], None]) -> int:
    from .context import Context

    try:
        async with Context(settings, max_size=30, sealed=True) as ctx:
            assert ctx.target is not None
            target = ctx.target

            def ready(address: str) -> None:
                print(f"hookproof serving on http://{address} ({target.describe()})", flush=True)

            await ctx.serve(ready=ready)  # imports the daemon (never in the supervisor)
    finally:
        leave()
    return 0


async def _serve_worker(args: argparse.Namespace, settings: Settings) -> int:
    import dataclasses

    import structlog

    settings = dataclasses.replace(
        settings, worker_slot=(args.worker_index, max(args.worker_count or 1, 1))
    )
    from .context import Context

    structlog.contextvars.bind_contextvars(worker=args.worker_index, pid=os.getpid())
    async with Context(settings, max_size=args.pool_size or 30, announce=False, sealed=True) as ctx:

        def ready(_address: str) -> None:
            if args.ready_fd is not None:
                os.write(args.ready_fd, b"ready\n")
                os.close(args.ready_fd)

        await ctx.serve(ready=ready, reuse_port=True)
    return 0


def register(sub: Any) -> None:
    p = add_command(sub, "serve", help="run the daemon (API and workers)")
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help="processes sharing the API port and the queue (HOOKPROOF_WORKERS; default: cores)",
    )
    p.add_argument("--worker-index", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--worker-count", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--ready-fd", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--pool-size", type=int, default=None, help=argparse.SUPPRESS)
    p.set_defaults(handler=cmd_serve)
