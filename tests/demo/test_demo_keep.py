"""``hookproof demo --keep``: after the story the daemon stays up, printing the console
address, the tenant token and the whole portal link (which works), until SIGTERM."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import urllib.request

_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _get(url: str, token: str) -> tuple[int, bytes]:
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    with _OPENER.open(req, timeout=10) as r:
        return int(r.status), r.read()


def test_demo_keep_leaves_a_working_console_and_portal_link() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOOKPROOF_")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "hookproof.engine.cli", "demo", "--keep", "--events", "2"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    seen: list[str] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:  # until it says it is kept running (or exits)
            seen.append(line)
            if line.startswith("[demo] Ctrl-C stops it"):
                break
        out = "".join(seen)
        console = re.search(r"console (http://127\.0\.0\.1:\d+)/console", out)
        token = re.search(r"^\[demo\] tenant token: (hp_\S+)$", out, re.M)
        portal = re.search(
            r"^\[demo\] portal link: (http://\S+/console#portal=(hpp_\S+))$", out, re.M
        )
        assert console and token and portal, out[-3000:]
        base = console.group(1)
        status, page = _get(base + "/console", token.group(1))
        assert status == 200 and b"<html" in page.lower()
        status, body = _get(base + "/v1/whoami", portal.group(2))  # the link's token works
        who = json.loads(body)
        assert status == 200 and who["kind"] == "portal" and who["consumerId"] == "acme-corp"
        assert "..." not in portal.group(1)
        proc.send_signal(signal.SIGTERM)
        rest, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert proc.returncode == 0
    assert "nothing left running" in rest
    log = re.search(r"^\[demo\] the engine's log: (\S+)$", "".join(seen), re.M)
    assert log, "".join(seen)[-2000:]
    os.unlink(log.group(1))  # the report named it; the test leaves nothing behind
