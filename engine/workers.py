"""``hookproof serve --workers N``: N daemon processes sharing the API port and the queue.

The supervisor (this module, the process the operator started) resolves the database once
(starting the embedded Postgres if no URL is configured) and applies the migrations, then
starts N ``hookproof serve`` children with that database URL. Each child binds the API port
with ``SO_REUSEPORT`` (the kernel spreads connections over them) and runs every role, but
only the first tails the log (:func:`child_roles`); the queue is shared through Postgres
(``FOR UPDATE SKIP LOCKED``, expected stream versions), so no attempt is sent twice. Each
child knows its index and the count (``--worker-index``, ``--worker-count``): its dispatcher
claims its own share of the endpoints first, so a subscriber site is served by one child and
its pooled connections. Children start one after another (first-run setup such as the
engine key happens once), each saying "ready" on a pipe.

SIGTERM or SIGINT: every child gets SIGTERM and is waited for (graceful: in-flight attempts
are recorded), then the supervisor exits 0. A child that exits on its own is logged
(``worker_exited``) and restarted (``worker_restarted``) after a back-off that grows while it
keeps crashing. Children die with the supervisor (``PR_SET_PDEATHSIG``), so a supervisor
killed outright leaves no orphan holding the port.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
import sys
import time
from collections.abc import Callable
from typing import Final

import structlog

from hookproof.config import Settings

__all__ = ["child_roles", "default_workers", "pool_size", "supervise"]

log = structlog.get_logger("hookproof.workers")

_PR_SET_PDEATHSIG: Final = 1
_READY_TIMEOUT_S: Final = 120.0
_STOP_TIMEOUT_S: Final = 30.0
_STABLE_S: Final = 30.0  # a child that lived this long resets the back-off
#: Postgres connections shared by all children (each gets a slice, at least 10): the
#: embedded server allows 100 clients, and the CLI and operators need some too.
_POOL_BUDGET: Final = 60


def pool_size(n: int) -> int:
    """Each child's Postgres pool for ``n`` children."""
    return max(10, _POOL_BUDGET // max(n, 1))


def child_roles(roles: frozenset[str], index: int) -> frozenset[str]:
    """The roles child ``index`` runs: all of ``roles``, except that only the first child tails
    the log (``projector``: the asynchronous projections and the notifier). Several tailers
    only take turns on the same checkpoint, each paying a wake-up per commit."""
    return roles if index == 0 else roles - {"projector"}


def default_workers(configured: int | None) -> int:
    """``--workers`` / ``HOOKPROOF_WORKERS``, else the number of cores."""
    return configured or os.cpu_count() or 1


def _die_with_parent() -> None:  # runs in the child between fork and exec
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


class _Child:
    def __init__(self, index: int) -> None:
        self.index = index
        self.proc: asyncio.subprocess.Process | None = None
        self.started = 0.0
        self.backoff = 0.5
        self.restarts = 0


async def _spawn(child: _Child, env: dict[str, str], pool: int, count: int) -> bool:
    """Start one child and wait until it says ready (False: it died or never did)."""
    read_fd, write_fd = os.pipe()
    try:
        roles = ",".join(sorted(child_roles(Settings(env=env).roles, child.index)))
        child.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "hookproof.engine.cli",
            "serve",
            "--workers",
            "1",
            "--worker-index",
            str(child.index),
            "--worker-count",
            str(count),
            "--ready-fd",
            str(write_fd),
            "--pool-size",
            str(pool),
            env={**env, "HOOKPROOF_ROLES": roles},
            pass_fds=(write_fd,),
            preexec_fn=_die_with_parent,
        )
    finally:
        os.close(write_fd)
    child.started = time.monotonic()
    log.info("worker_started", worker=child.index, pid=child.proc.pid)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    pipe = os.fdopen(read_fd, "rb", buffering=0)
    transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), pipe)
    try:
        line = await asyncio.wait_for(reader.readline(), _READY_TIMEOUT_S)
    except TimeoutError:
        line = b""
    finally:
        transport.close()
    return line.strip() == b"ready"


async def _keep(
    child: _Child, env: dict[str, str], pool: int, count: int, stop: asyncio.Event
) -> None:
    """Restart the child whenever it exits on its own, until ``stop``."""
    while not stop.is_set():
        proc = child.proc
        if proc is None:
            return
        code = await proc.wait()
        if stop.is_set():
            return
        lived = time.monotonic() - child.started
        log.error("worker_exited", worker=child.index, pid=proc.pid, code=code, lived_s=lived)
        if lived > _STABLE_S:
            child.backoff = 0.5
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), child.backoff)
        if stop.is_set():
            return
        child.backoff = min(child.backoff * 2, 30.0)
        child.restarts += 1
        await _spawn(child, env, pool, count)
        assert child.proc is not None
        log.warning(
            "worker_restarted",
            worker=child.index,
            pid=child.proc.pid,
            previous_pid=proc.pid,
            restarts=child.restarts,
        )


async def _stop_all(children: list[_Child]) -> None:
    live = [c.proc for c in children if c.proc is not None and c.proc.returncode is None]
    for proc in live:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGTERM)
    if not live:
        return
    _, pending = await asyncio.wait(
        [asyncio.ensure_future(p.wait()) for p in live], timeout=_STOP_TIMEOUT_S
    )
    if pending:
        for proc in live:
            if proc.returncode is None:
                log.error("worker_kill", pid=proc.pid)
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
        await asyncio.wait(pending, timeout=5)


async def supervise(
    n: int,
    database_url: str,
    *,
    ready: Callable[[], None] | None = None,
) -> int:
    """Run ``n`` children until SIGTERM/SIGINT; restart any that exits on its own."""
    env = {**Settings().env, "HOOKPROOF_DATABASE_URL": database_url, "HOOKPROOF_WORKERS": "1"}
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    children = [_Child(i) for i in range(n)]
    keepers: list[asyncio.Task[None]] = []
    try:
        for child in children:  # one after another: first-run setup happens once
            if stop.is_set():
                break
            if not await _spawn(child, env, pool_size(n), n):
                log.error("worker_not_ready", worker=child.index)
            keepers.append(asyncio.create_task(_keep(child, env, pool_size(n), n, stop)))
        if not stop.is_set():
            log.info("workers_ready", workers=n, pids=[c.proc.pid for c in children if c.proc])
            if ready is not None:
                ready()
        await stop.wait()
    finally:
        stop.set()
        log.info("workers_stopping", workers=n)
        await _stop_all(children)
        for task in keepers:
            task.cancel()
        await asyncio.gather(*keepers, return_exceptions=True)
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
        log.info("workers_stopped", workers=n)
    return 0
