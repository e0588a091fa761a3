"""Errors a newcomer meets first, as real processes: one line that says what to change, a
non-zero status, no traceback."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..daemon import free_port, run_cli


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A loopback port held by a listening socket of this process."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield int(s.getsockname()[1])


def _serve(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hookproof.engine.cli", "serve", *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=5,  # the promise: it exits within 5 s (TimeoutExpired fails the test)
        check=False,
    )


@pytest.mark.parametrize("workers", ["1", "3"])
def test_serve_on_a_port_in_use_exits_with_one_line(
    taken_port: int, db_url_sync: str, workers: str
) -> None:
    env = {"HOOKPROOF_LISTEN": f"127.0.0.1:{taken_port}", "HOOKPROOF_DATABASE_URL": db_url_sync}
    done = _serve(env, "--workers", workers)
    assert done.returncode == 78, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert str(taken_port) in lines[0] and "HOOKPROOF_LISTEN" in lines[0]
    assert "Traceback" not in done.stderr + done.stdout


def test_serve_workers_zero_is_refused(db_url_sync: str) -> None:
    env = {"HOOKPROOF_LISTEN": f"127.0.0.1:{free_port()}", "HOOKPROOF_DATABASE_URL": db_url_sync}
    done = _serve(env, "--workers", "0")
    assert done.returncode != 0
    assert done.stderr.splitlines() == [done.stderr.strip()]
    assert "--workers" in done.stderr and "workers_invalid" in done.stderr


UNREACHABLE = (
    "postgresql://hookproof:s3cret-pw@127.0.0.1:{port}/nothing",  # nothing listens
    "postgresql://hookproof:s3cret-pw@127.0.0.1:{port}/x?password=s3cret-pw",
    "host=127.0.0.1 password=s3cret-pw",  # not a URL at all
)


@pytest.mark.parametrize(
    "command",
    [
        ["db", "status"],
        ["migrate"],
        ["tenant", "create", "x"],
        ["serve", "--workers", "1"],
        ["serve", "--workers", "2"],
    ],
)
@pytest.mark.parametrize("url", UNREACHABLE)
def test_an_unreachable_database_is_one_clear_line(
    command: list[str], url: str, tmp_path: Path
) -> None:
    env = {
        "HOOKPROOF_DATABASE_URL": url.format(port=free_port()),
        "HOOKPROOF_LISTEN": f"127.0.0.1:{free_port()}",
    }
    done = run_cli(command, env, timeout=30)
    assert done.returncode == 2
    errors = [line for line in done.stderr.splitlines() if line.startswith("error ")]
    assert len(errors) == 1 and "[database_unavailable]" in errors[0], done.stderr
    assert "HOOKPROOF_DATABASE_URL" in errors[0]
    assert "Traceback" not in done.stderr
    assert "s3cret-pw" not in done.stderr + done.stdout


def test_commands_say_which_database_they_use(db_url_sync: str, tmp_path: Path) -> None:
    url = db_url_sync.replace("postgresql://postgres@", "postgresql://postgres:unused-pw@")
    done = run_cli(["tenant", "create", "acme"], {"HOOKPROOF_DATABASE_URL": url})
    assert done.returncode == 0, done.stderr
    assert "hookproof: database: external Postgres at postgresql://postgres:***@" in done.stderr
    assert "unused-pw" not in done.stderr + done.stdout
    assert done.stdout.strip().splitlines()[-1].startswith("hp_")  # the token, last, alone


def test_a_new_embedded_database_is_named() -> None:
    """``tenant create`` in a directory with no embedded database says it created one, and
    where, and how to point at the database of a running ``serve``."""
    # outside pytest's 0700 tree: the embedded server may run as another user (as root)
    folder = Path(tempfile.mkdtemp(prefix="hookproof-newdb-"))
    try:
        env = {"HOOKPROOF_DATABASE_URL": "", "HOOKPROOF_DATA_DIR": str(folder / "elsewhere")}
        done = run_cli(["tenant", "create", "acme"], env, timeout=120)
        assert done.returncode == 0, done.stderr
        assert f"embedded Postgres (pgserver) in {folder / 'elsewhere' / 'pg'}" in done.stderr
        assert "created by this command" in done.stderr and "HOOKPROOF_DATA_DIR" in done.stderr
        again = run_cli(["tenant", "create", "beta"], env, timeout=120)
        assert again.returncode == 0, again.stderr
        assert "created by this command" not in again.stderr
    finally:
        shutil.rmtree(folder, ignore_errors=True)
