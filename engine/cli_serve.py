"""``hookproof serve``: kept light, because the supervisor of ``serve --workers N`` is this
process for the daemon's whole life and only watches its children: it imports the database
and migration code it needs, never the engine (:mod:`.daemon` is imported by the process
that serves). ``hookproof.engine.cli`` builds only this sub-command's parser for ``serve``.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from hookproof.config import Settings

from .cli_context import Context

__all__ = ["cmd_serve", "register"]


async def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    from .logging import configure_logging
    from .workers import default_workers, supervise

    configure_logging()
    workers = default_workers(args.workers or settings.workers)
    if args.worker_index is not None:  # one child of ``serve --workers N``
        return await _serve_worker(args, settings)
    if workers > 1:
        async with Context(settings, max_size=1) as ctx:  # migrations once, embedded PG kept
            assert ctx.target is not None
            target = ctx.target
            await ctx.close_pool()

            def all_ready() -> None:
                address = f"{settings.listen_host}:{settings.listen_port}"
                print(
                    f"hookproof serving on http://{address} ({workers} workers; "
                    f"{target.describe()})",
                    flush=True,
                )

            return await supervise(workers, target.url, ready=all_ready)
    async with Context(settings, max_size=30) as ctx:
        assert ctx.target is not None
        target = ctx.target

        def ready(address: str) -> None:
            print(f"hookproof serving on http://{address} ({target.describe()})", flush=True)

        await ctx.serve(ready=ready)  # imports the daemon (never in the supervisor)
    return 0


async def _serve_worker(args: argparse.Namespace, settings: Settings) -> int:
    import dataclasses

    import structlog

    settings = dataclasses.replace(
        settings, worker_slot=(args.worker_index, max(args.worker_count or 1, 1))
    )
    structlog.contextvars.bind_contextvars(worker=args.worker_index, pid=os.getpid())
    async with Context(settings, max_size=args.pool_size or 30) as ctx:

        def ready(_address: str) -> None:
            if args.ready_fd is not None:
                os.write(args.ready_fd, b"ready\n")
                os.close(args.ready_fd)

        await ctx.serve(ready=ready, reuse_port=True)
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("serve", help="run the daemon (API and workers)")
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
