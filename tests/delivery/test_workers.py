"""``hookproof serve --workers 2`` as real processes: both children serve the API port and
deliver from the one queue, no attempt is sent twice, a crashed child is restarted (and
logged), SIGTERM stops them all."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import trustme

from .conftest import Subscriber
from .test_processes import _env, _publish, _setup, _start, _stop, _wait_states


def _log_events(text: str, name: str) -> list[dict[str, Any]]:
    out = []
    for line in text.splitlines():
        if line.startswith("{") and f'"{name}"' in line:
            doc = json.loads(line)
            if doc.get("event") == name:
                out.append(doc)
    return out


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    if status.exists() and "\nState:\tZ" in status.read_text():
        return False
    return True


#: Native parts (shared objects in /proc/PID/maps) of what a worker needs and the
#: supervisor must not load.
_HEAVY = ("/asyncpg/", "/aiohttp/", "/_ssl.", "/cryptography/")


def _native_modules(pid: int) -> set[str]:
    maps = Path(f"/proc/{pid}/maps").read_text()
    return {name for name in _HEAVY if name in maps}


async def _until(check: Any, timeout: float = 60) -> None:
    for _ in range(int(timeout * 10)):
        if check():
            return
        await asyncio.sleep(0.1)
    raise AssertionError("condition not reached")


async def test_two_workers_share_port_and_queue_and_stop_on_sigterm(
    db_url: str, pool: Any, tmp_path: Path, subscriber: Subscriber, ca: trustme.CA
) -> None:
    env = _env(db_url, tmp_path, subscriber, ca, HOOKPROOF_WORKERS="2")
    d = await _start(env, tmp_path)
    stopped = False
    try:
        await _until(lambda: _log_events(d.log(), "workers_ready"))  # /readyz: the first one
        ready = _log_events(d.log(), "workers_ready")
        assert len(ready) == 1 and len(ready[0]["pids"]) == 2
        pids = set(ready[0]["pids"])
        assert d.proc.pid not in pids
        assert "2 workers" in d.log()
        # the supervisor lives as long as the daemon and only watches: no database driver,
        # no HTTP stack, no TLS library in its memory (the children have them)
        assert _native_modules(d.proc.pid) == set()
        for pid in pids:
            assert _native_modules(pid) == set(_HEAVY)

        paths = await _paths_in_both_shares(pool, subscriber)
        token, _ = await _setup(env, d.base_url, subscriber, paths)
        await _publish(d.base_url, token, 60)
        await _wait_states(pool, "ENDPOINT_ACCEPTED", 180)

        # a crashed child is logged and replaced; the engine keeps delivering
        victim = sorted(pids)[0]
        os.kill(victim, signal.SIGKILL)
        await _until(lambda: _log_events(d.log(), "worker_restarted"))
        [restarted] = _log_events(d.log(), "worker_restarted")
        assert restarted["previous_pid"] == victim
        [exited] = _log_events(d.log(), "worker_exited")
        assert exited["pid"] == victim and exited["code"] == -signal.SIGKILL
        children = (pids - {victim}) | {restarted["pid"]}

        await _stop(d)
        stopped = True
        assert d.proc.returncode == 0
        for pid in children:
            await _until(lambda pid=pid: not _alive(pid), timeout=10)
        assert _log_events(d.log(), "workers_stopped")
    finally:
        if not stopped:
            await _stop(d)

    sent = Counter(
        (r.headers["Webhook-Delivery-Id"], r.headers["Webhook-Attempt"])
        for r in subscriber.deliveries()
    )
    assert len(sent) == 180 and max(sent.values()) == 1  # no attempt twice
    rows = await pool.fetch(
        "SELECT convert_from(data, 'UTF8')::jsonb->>'dispatcher' AS d, count(*) AS n FROM events "
        "WHERE type = 'delivery.attempt_admitted' GROUP BY 1"
    )
    by_pid = {int(r["d"].split(":")[1]): r["n"] for r in rows}
    assert set(by_pid) <= pids and len(by_pid) == 2, by_pid  # both children delivered
    served = {e["pid"] for e in _log_events(d.log(), "serve_started")}
    assert pids <= served  # each child bound the shared port itself


async def _paths_in_both_shares(pool: Any, subscriber: Subscriber) -> list[str]:
    """Three endpoint paths of which each worker of two owns at least one (each claims its
    own share of the endpoints first: ``engine/delivery/claim.py`` ``claim_shares``)."""
    from hookproof.engine.egress.endpoint import normalise_endpoint

    paths: dict[int, list[str]] = {0: [], 1: []}
    for i in range(64):
        p = f"ok-{i}"
        digest = normalise_endpoint(
            subscriber.url(p), allow_pairs={("127.0.0.1", subscriber.port)}
        ).digest
        share = await pool.fetchval("SELECT mod(abs(hashtext($1)::bigint), 2)", digest)
        paths[share].append(p)
        if paths[0] and paths[1] and len(paths[0]) + len(paths[1]) >= 3:
            first, more = [paths[0][0], paths[1][0]], paths[0][1:] + paths[1][1:]
            return [*first, more[0]]
    raise AssertionError(f"no endpoints in both shares: {paths}")


def test_worker_count_and_pool_slices() -> None:
    import pytest

    from hookproof.config import Settings
    from hookproof.engine.runtime.workers import default_workers, pool_size
    from hookproof.errors import ValidationError

    assert default_workers(None) == (os.cpu_count() or 1)
    assert default_workers(3) == 3
    assert Settings.from_env({"HOOKPROOF_WORKERS": "4"}).workers == 4
    assert Settings.from_env({}).workers is None
    with pytest.raises(ValidationError):
        Settings.from_env({"HOOKPROOF_WORKERS": "0"})
    # N workers' pools stay within the embedded server's 100 clients
    assert pool_size(1) == 60 and pool_size(2) == 30 and pool_size(8) == 10
    assert all(n * pool_size(n) <= 100 for n in range(1, 11))


def test_serve_supervisor_does_not_load_the_engine() -> None:
    """The supervisor of ``serve --workers N`` lives as long as the daemon and only watches
    its children: parsing ``serve`` loads neither the engine nor the HTTP stack (memory)."""
    code = (
        "import sys\n"
        "from hookproof.engine.cli import build_parser\n"
        "args = build_parser(serve_only=True).parse_args(['serve', '--workers', '2'])\n"
        "assert args.workers == 2 and args.handler.__name__ == 'cmd_serve'\n"
        "heavy = [m for m in ('hookproof.engine.runtime.daemon', 'aiohttp') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_supervisor_without_a_database_fails_before_any_worker(tmp_path: Path) -> None:
    """The migrations run in a short-lived child before the workers start: when they cannot
    (no server at the URL), ``serve --workers 2`` exits with the child's error and starts no
    worker."""
    env = {
        **os.environ,
        "HOOKPROOF_DATABASE_URL": "postgresql://postgres@127.0.0.1:1/none",
        "HOOKPROOF_DATA_DIR": str(tmp_path),
        "HOOKPROOF_WORKERS": "2",
    }
    done = subprocess.run(
        [sys.executable, "-m", "hookproof.engine.cli", "serve"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "error [database_unavailable]" in done.stderr
    assert _log_events(done.stderr, "migrations_failed")
    assert not _log_events(done.stderr, "worker_started")


async def test_two_workers_on_the_embedded_postgres(tmp_path: Path) -> None:
    """No database URL: the supervisor starts the embedded Postgres, a child migrates it, both
    workers serve; SIGTERM stops the workers and then the embedded server."""
    import shutil
    import tempfile

    from tests.daemon import start_daemon

    # a world-readable folder, as the conftest's embedded server: pgserver runs Postgres as
    # its own user when the tests run as root
    data = Path(tempfile.mkdtemp(prefix="hp-workers-"))
    env = {k: v for k, v in os.environ.items() if k != "HOOKPROOF_DATABASE_URL"}
    env.update(HOOKPROOF_DATA_DIR=str(data), HOOKPROOF_WORKERS="2")
    d = await asyncio.to_thread(start_daemon, env, tmp_path)
    try:
        await _until(lambda: _log_events(d.log(), "workers_ready"))
        assert "embedded Postgres" in d.log() and "2 workers" in d.log()
        postmaster = data / "pg" / "postmaster.pid"
        assert postmaster.exists()
        pg_pid = int(postmaster.read_text().split()[0])
    finally:
        code = await asyncio.to_thread(d.stop)
    try:
        assert code == 0
        assert _log_events(d.log(), "workers_stopped")
        await _until(lambda: not _alive(pg_pid), timeout=20)
    finally:
        shutil.rmtree(data, ignore_errors=True)


def test_structlog_extras_are_never_loaded() -> None:
    """A hookproof command loads none of the console extras structlog would import when
    installed (the test tools bring ``rich`` and ``greenlet``; JSON lines need neither)."""
    code = (
        "import sys\n"
        "from hookproof.engine import cli\n"
        "cli._skip_unused_imports()\n"
        "import structlog, structlog.dev, structlog.threadlocal\n"
        "loaded = [m for m in ('rich', 'greenlet') if sys.modules.get(m) is not None]\n"
        "assert not loaded, loaded\n"
        "assert structlog.dev.rich is None\n"
    )
    subprocess.run([sys.executable, "-W", "ignore", "-c", code], check=True, timeout=60)


def test_only_the_first_child_tails_the_log() -> None:
    from hookproof.engine.runtime.workers import child_roles

    every = frozenset({"api", "dispatcher", "projector", "scheduler"})
    assert child_roles(every, 0) == every
    assert child_roles(every, 1) == every - {"projector"}
    assert child_roles(frozenset({"api"}), 1) == {"api"}
