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

The supervisor stays small (it lives as long as the daemon): a plain loop over ``select`` and
signals, no event loop, no TLS, no database driver. The migrations run once in a short-lived
``hookproof migrate`` child before the workers start; only an embedded Postgres is started
here (its handle must live as long as the daemon).

SIGTERM or SIGINT: every child gets SIGTERM and is waited for (graceful: in-flight attempts
are recorded), then the supervisor exits 0. A child that exits on its own is logged
(``worker_exited``) and restarted (``worker_restarted``) after a back-off that grows while it
keeps crashing. Children die with the supervisor (``PR_SET_PDEATHSIG``), so a supervisor
killed outright leaves no orphan holding the port.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any, Final

import structlog

from hookproof.config import Settings, default_workers

__all__ = ["child_roles", "default_workers", "migrate_in_child", "pool_size", "supervise"]

log = structlog.get_logger("hookproof.workers")

_PR_SET_PDEATHSIG: Final = 1
_READY_TIMEOUT_S: Final = 120.0
_STOP_TIMEOUT_S: Final = 30.0
_TAILER_STOP_S: Final = 10.0  # of those, kept for the first child, stopped last
_STABLE_S: Final = 30.0  # a child that lived this long resets the back-off
#: Postgres connections shared by all children (each gets a slice, at least 10): the
#: embedded server allows 100 clients, and the CLI and operators need some too.
_POOL_BUDGET: Final = 60
_STOP_SIGNALS: Final = (signal.SIGTERM, signal.SIGINT)
#: a child's exit code when its configuration cannot work (``ConfigurationError``): the
#: supervisor stops instead of restarting it
EX_CONFIG: Final = 78


def pool_size(n: int) -> int:
    """Each child's Postgres pool for ``n`` children."""
    return max(10, _POOL_BUDGET // max(n, 1))


def child_roles(roles: frozenset[str], index: int) -> frozenset[str]:
    """The roles child ``index`` runs: all of ``roles``, except that only the first child tails
    the log (``projector``: the asynchronous projections and the notifier). Several tailers
    only take turns on the same checkpoint, each paying a wake-up per commit."""
    return roles if index == 0 else roles - {"projector"}


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "hookproof.engine.cli", *args]


def migrate_in_child(database_url: str, extra_env: dict[str, str] | None = None) -> int:
    """``hookproof migrate`` in a short-lived child (the migration code and the driver stay
    out of the supervisor); its exit code (errors on its stderr). ``extra_env``: what the
    children must see besides the URL (the embedded database's data dir: its master key)."""
    env = {**Settings().env, **(extra_env or {}), "HOOKPROOF_DATABASE_URL": database_url}
    done = subprocess.run(_command("migrate"), env=env, stdout=subprocess.DEVNULL, check=False)
    if done.returncode != 0:
        log.error("migrations_failed", code=done.returncode)
    return done.returncode


def _config_error(child: _Child) -> bool:
    """The child exited with EX_CONFIG: its configuration cannot work (e.g. the port)."""
    proc = child.exited or child.proc
    return proc is not None and proc.poll() == EX_CONFIG


def _die_with_parent() -> None:  # runs in the child between fork and exec
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


class _Child:
    def __init__(self, index: int) -> None:
        self.index = index
        self.proc: subprocess.Popen[bytes] | None = None
        self.started = 0.0
        self.backoff = 0.5
        self.restarts = 0
        self.restart_at: float | None = None  # exited; restart at this time
        self.exited: subprocess.Popen[bytes] | None = None


class _Signals:
    """SIGTERM/SIGINT set ``stopping``; they and SIGCHLD wake :meth:`wait` (a self-pipe)."""

    def __init__(self) -> None:
        self.stopping = False
        self._read, self._write = os.pipe()
        os.set_blocking(self._read, False)
        os.set_blocking(self._write, False)
        self._previous: dict[int, Any] = {}
        self._previous_fd = signal.set_wakeup_fd(self._write, warn_on_full_buffer=False)
        for sig in (*_STOP_SIGNALS, signal.SIGCHLD):
            self._previous[sig] = signal.signal(sig, self._handle)

    def _handle(self, signum: int, _frame: object) -> None:
        if signum in _STOP_SIGNALS:
            self.stopping = True

    def wait(self, timeout: float | None, fds: tuple[int, ...] = ()) -> list[int]:
        """Until a signal, one of ``fds`` is readable, or ``timeout``: the readable ``fds``."""
        if timeout is not None and timeout <= 0:
            timeout = 0
        readable, _, _ = select.select([self._read, *fds], [], [], timeout)
        if self._read in readable:
            with contextlib.suppress(BlockingIOError):
                while os.read(self._read, 512):
                    pass
        return [fd for fd in readable if fd != self._read]

    def sleep(self, seconds: float) -> None:
        """Sleep, cut short by SIGTERM/SIGINT."""
        deadline = time.monotonic() + seconds
        while not self.stopping and (left := deadline - time.monotonic()) > 0:
            self.wait(left)

    def close(self) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        signal.set_wakeup_fd(self._previous_fd)
        os.close(self._read)
        os.close(self._write)


def _spawn(child: _Child, env: dict[str, str], pool: int, count: int, sigs: _Signals) -> bool:
    """Start one child and wait until it says ready (False: it died, never did, or SIGTERM)."""
    read_fd, write_fd = os.pipe()
    try:
        roles = ",".join(sorted(child_roles(Settings(env=env).roles, child.index)))
        child.proc = subprocess.Popen(
            _command(
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
            ),
            env={**env, "HOOKPROOF_ROLES": roles},
            pass_fds=(write_fd,),
            preexec_fn=_die_with_parent,
        )
    except BaseException:
        os.close(read_fd)
        raise
    finally:
        os.close(write_fd)
    child.started = time.monotonic()
    log.info("worker_started", worker=child.index, pid=child.proc.pid)
    line = b""
    deadline = child.started + _READY_TIMEOUT_S
    try:
        while not sigs.stopping and b"\n" not in line:
            if not sigs.wait(deadline - time.monotonic(), (read_fd,)):
                if time.monotonic() >= deadline:
                    break
                continue
            chunk = os.read(read_fd, 64)
            if not chunk:  # the child closed the pipe (or died) without a word
                break
            line += chunk
    finally:
        os.close(read_fd)
    return line.strip() == b"ready"


def _watch(
    children: list[_Child], env: dict[str, str], pool: int, count: int, sigs: _Signals
) -> None:
    """Until SIGTERM/SIGINT: log and restart (after a back-off) any child that exits."""
    while not sigs.stopping:
        now = time.monotonic()
        for child in children:
            proc = child.proc
            if _config_error(child):
                return
            if child.restart_at is None and proc is not None and proc.poll() is not None:
                lived = now - child.started
                log.error(
                    "worker_exited",
                    worker=child.index,
                    pid=proc.pid,
                    code=proc.returncode,
                    lived_s=lived,
                )
                if lived > _STABLE_S:
                    child.backoff = 0.5
                child.restart_at = now + child.backoff
                child.exited = proc
            if child.restart_at is not None and now >= child.restart_at and not sigs.stopping:
                previous = child.exited
                child.restart_at, child.exited = None, None
                child.backoff = min(child.backoff * 2, 30.0)
                child.restarts += 1
                _spawn(child, env, pool, count, sigs)
                assert child.proc is not None and previous is not None
                log.warning(
                    "worker_restarted",
                    worker=child.index,
                    pid=child.proc.pid,
                    previous_pid=previous.pid,
                    restarts=child.restarts,
                )
        due = [c.restart_at for c in children if c.restart_at is not None]
        sigs.wait(min(due) - time.monotonic() if due else None)


def _stop_all(children: list[_Child]) -> None:
    """SIGTERM the children, the first (the log tailer: :func:`child_roles`) last: it stops
    once the others have, so its projector's final catch-up sees all they committed."""
    live = [c.proc for c in children if c.proc is not None and c.proc.poll() is None]
    deadline = time.monotonic() + _STOP_TIMEOUT_S
    tailer = children[0].proc if children else None
    others = [p for p in live if p is not tailer]
    phases = ((others, deadline - _TAILER_STOP_S), ([p for p in live if p is tailer], deadline))
    for phase, until in phases:
        for proc in phase:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)
        for proc in phase:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(max(until - time.monotonic(), 0))
    for proc in others:  # any still stopping have until the common deadline
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(max(deadline - time.monotonic(), 0))
    late = [proc for proc in live if proc.poll() is None]
    for proc in late:
        log.error("worker_kill", pid=proc.pid)
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
    for proc in late:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(5)


def supervise(
    n: int,
    database_url: str,
    *,
    ready: Callable[[], None] | None = None,
    extra_env: dict[str, str] | None = None,
) -> int:
    """Run ``n`` children until SIGTERM/SIGINT; restart any that exits on its own."""
    env = {
        **Settings().env,
        **(extra_env or {}),
        "HOOKPROOF_DATABASE_URL": database_url,
        "HOOKPROOF_WORKERS": "1",
    }
    sigs = _Signals()
    children = [_Child(i) for i in range(n)]
    try:
        for child in children:  # one after another: first-run setup happens once
            if sigs.stopping:
                break
            if not _spawn(child, env, pool_size(n), n, sigs) and not sigs.stopping:
                log.error("worker_not_ready", worker=child.index)
                if child.proc is not None:  # it closed the pipe: give it a moment to exit
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        child.proc.wait(2)
                if _config_error(child):  # it said why on stderr; restarting cannot help
                    return EX_CONFIG
        if not sigs.stopping:
            log.info("workers_ready", workers=n, pids=[c.proc.pid for c in children if c.proc])
            if ready is not None:
                ready()
        _watch(children, env, pool_size(n), n, sigs)
        if any(_config_error(c) for c in children):
            return EX_CONFIG
    finally:
        sigs.stopping = True
        log.info("workers_stopping", workers=n)
        _stop_all(children)
        sigs.close()
        log.info("workers_stopped", workers=n)
    return 0
