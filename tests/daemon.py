"""Run ``hookproof serve`` as a real process for tests."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Daemon:
    proc: subprocess.Popen[bytes]
    base_url: str
    log_path: Path

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 20.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                _kill_group(self.proc)
        return int(self.proc.returncode)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


def run_cli(
    args: list[str], env: dict[str, str], timeout: float = 60, *, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hookproof.engine.cli", *args],
        env={**os.environ, **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def start_daemon(
    env: dict[str, str], log_dir: Path, *, port: int | None = None, cwd: Path | None = None
) -> Daemon:
    port = port or free_port()
    # one process unless the test asks for ``serve --workers N`` (the default is the cores)
    full_env = {
        "HOOKPROOF_WORKERS": "1",
        **os.environ,
        **env,
        "HOOKPROOF_LISTEN": f"127.0.0.1:{port}",
    }
    log_path = log_dir / f"daemon-{port}-{time.monotonic_ns()}.log"
    with log_path.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "hookproof.engine.cli", "serve"],
            env=full_env,
            cwd=cwd,
            stdout=out,
            stderr=subprocess.STDOUT,
            # its own process group, so a daemon that never became ready is ended with its
            # workers (SIGKILL of the supervisor alone would leave `serve --workers N` children)
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"daemon exited early:\n{log_path.read_text()}")
        try:
            with _OPENER.open(base + "/readyz", timeout=1) as r:
                if r.status == 200:
                    return Daemon(proc, base, log_path)
        except OSError:
            time.sleep(0.1)
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        pass
    _kill_group(proc)
    raise RuntimeError(f"daemon not ready:\n{log_path.read_text()}")


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the daemon's process group (supervisor and workers) and reap the supervisor."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(5)
