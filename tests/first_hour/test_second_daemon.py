"""A second ``serve`` on the same embedded data dir (another port): it says which daemon it
joined, and refuses to start with other egress settings, in one line naming them."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..daemon import free_port, start_daemon


@pytest.fixture
def folder() -> Iterator[Path]:
    # outside pytest's 0700 tree: the embedded Postgres may run as another user (as root)
    path = Path(tempfile.mkdtemp(prefix="hookproof-peers-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _env(folder: Path, allow: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOOKPROOF_")}
    env.update(
        HOOKPROOF_DATA_DIR=str(folder / "data"),
        HOOKPROOF_MASTER_KEY="cXFxcXFxcXFxcXFxcXFxcXFxcXFxcXFxcXFxcXFxcXE",
        HOOKPROOF_DNS_SERVERS="127.0.0.1:9",
        HOOKPROOF_EGRESS_ALLOW=allow,
    )
    return env


def test_a_second_daemon_on_the_same_embedded_database(folder: Path) -> None:
    first = start_daemon(_env(folder, "127.0.0.1:9443"), folder)
    others: list[subprocess.Popen[bytes]] = []
    try:
        port = first.base_url.rsplit(":", 1)[1]
        # other egress settings: refused before it serves anything, one line, exit 78
        refused = subprocess.run(
            [sys.executable, "-m", "hookproof.engine.cli", "serve"],
            env={**_env(folder, "127.0.0.1:9444"), "HOOKPROOF_LISTEN": f"127.0.0.1:{free_port()}"},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert refused.returncode == 78, refused.stdout + refused.stderr
        [line] = [x for x in refused.stderr.splitlines() if x.startswith("error")]
        assert line.startswith("error [embedded_egress_differs]: another hookproof serve (pid ")
        assert f"on 127.0.0.1:{port})" in line and str(first.proc.pid) in line
        assert "HOOKPROOF_EGRESS_ALLOW: '127.0.0.1:9444' here, '127.0.0.1:9443' there" in line
        assert "serving on" not in refused.stdout

        # the same settings: it joins, and says whose database it joined
        second = start_daemon(_env(folder, "127.0.0.1:9443"), folder)
        others.append(second.proc)
        log = second.log()
        assert (
            f"hookproof: joined the embedded database of the daemon pid {first.proc.pid}"
            f" on 127.0.0.1:{port}; both use the same egress settings"
        ) in log
        joined = [
            json.loads(x) for x in log.splitlines() if x.startswith("{") and '"daemon_joined"' in x
        ]
        assert joined and joined[0]["peer_pid"] == first.proc.pid
        assert second.stop() == 0
    finally:
        for proc in others:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
        first.stop()
    # a stopped daemon's record is gone: nobody is joined any more
    assert not list((folder / "data" / "daemons").glob("*.json"))
