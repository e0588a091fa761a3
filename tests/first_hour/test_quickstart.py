"""The README's quick start, run as written: its commands are read from the README itself
(between the ``quickstart`` markers) and run by bash in a fresh folder, with the engine,
the embedded Postgres and the SDK receiver as real processes. It must end in
APPLICATION_CONFIRMED.

Only the two ports are changed (8080 and 9443 become free ports, so the test runs beside
other engines on the machine); everything else is the README's text.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..daemon import free_port

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def quickstart_blocks(text: str) -> tuple[str, str]:
    """The shell of the quick start and of its stop step, from the README's markers."""

    def block(begin: str, end: str) -> str:
        found = re.search(rf"<!-- {begin} -->\n```sh\n(.*?)```\n<!-- {end} -->", text, re.S)
        assert found, f"README has no {begin} block"
        return found.group(1)

    return block("quickstart:begin", "quickstart:end"), block(
        "quickstart:stop", "quickstart:stop-end"
    )


@pytest.fixture
def folder() -> Iterator[Path]:
    # outside pytest's 0700 tree: the embedded Postgres may run as another user (as root)
    path = Path(tempfile.mkdtemp(prefix="hookproof-quickstart-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _wait_gone(pgid: int, timeout: float = 30.0) -> None:
    """Until no process of group ``pgid`` is left (SIGKILL after ``timeout``)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)


def test_the_readme_quick_start_ends_in_application_confirmed(folder: Path) -> None:
    run, stop = quickstart_blocks(README.read_text())
    engine_port, receiver_port = free_port(), free_port()
    script = (run + stop).replace("8080", str(engine_port)).replace("9443", str(receiver_port))
    (folder / "subscriber").symlink_to(ROOT / "subscriber")  # the checkout's SDK example
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOOKPROOF_")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["HOOKPROOF_DNS_SERVERS"] = "127.0.0.1:9"  # nothing resolves names here
    proc = subprocess.Popen(
        ["bash", "-e", "-o", "pipefail", "-c", script],
        cwd=folder,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=240)
    finally:
        # the script's background jobs (engine, receiver) outlive it when a step failed:
        # SIGTERM to its whole session stops them gracefully (the engine its Postgres too)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        _wait_gone(proc.pid)
    logs = "".join(
        f"\n--- {name}\n{(folder / name).read_text(errors='replace')[-3000:]}"
        for name in ("engine.log", "receiver.log")
        if (folder / name).exists()
    )
    assert proc.returncode == 0, out + logs
    assert re.search(r"^subscription sub_[0-9a-f]+: ACTIVE$", out, re.M), out + logs
    assert re.search(r"^delivery dlv_[0-9a-f]+: APPLICATION_CONFIRMED$", out, re.M), out + logs
    assert 'applied order-1 order.created {"total": 42}' in (folder / "receiver.log").read_text()
    # serve said at start which database it uses (the folder's embedded one)
    engine_log = (folder / "engine.log").read_text()
    assert f"hookproof: database: embedded Postgres (pgserver) in {folder}/.hookproof/pg" in (
        engine_log
    )
