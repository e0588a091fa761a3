"""The README's quick-start receiver (``subscriber/examples/local_receiver.py``) as a real
process, with the files of ``hookproof dev-endpoint``, beside a real engine process."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp

from hookproof.engine.cli.dev_endpoint import DevEndpoint, make_dev_endpoint

from ..daemon import free_port, run_cli

__all__ = ["QuickReceiver", "dev_endpoint", "engine_env", "subscribe", "tenant", "wait_for"]

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "subscriber" / "examples" / "local_receiver.py"


def dev_endpoint(tmp: Path) -> DevEndpoint:
    """``hookproof dev-endpoint --port <a free port>``'s files and settings."""
    return make_dev_endpoint(tmp / "dev", free_port(), current_allow=None)


def engine_env(db_url: str, tmp: Path, dev: DevEndpoint | None, **extra: str) -> dict[str, str]:
    """An engine's settings; with ``dev``, the two ``hookproof dev-endpoint`` exports."""
    env = {
        "HOOKPROOF_DATABASE_URL": db_url,
        "HOOKPROOF_DATA_DIR": str(tmp / "data"),
        "HOOKPROOF_MASTER_KEY": base64.urlsafe_b64encode(b"q" * 32).decode().rstrip("="),
        "HOOKPROOF_DNS_SERVERS": "127.0.0.1:9",  # nothing resolves names here
        "HOOKPROOF_CONNECT_TIMEOUT": "1",
        "HOOKPROOF_REQUEST_TIMEOUT": "3",
        **extra,
    }
    if dev is not None:
        env["HOOKPROOF_EGRESS_ALLOW"] = dev.egress_allow
        env["HOOKPROOF_EGRESS_CA_FILE"] = str(dev.ca_file)
    return env


async def tenant(env: dict[str, str], name: str) -> str:
    created = await asyncio.to_thread(run_cli, ["tenant", "create", name, "--json"], env)
    assert created.returncode == 0, created.stderr
    return str(json.loads(created.stdout.strip().splitlines()[-1])["token"])


@dataclass
class QuickReceiver:
    """``local_receiver.py --port P --dir D --engine E``; ``lines``: what it printed."""

    dev: DevEndpoint
    port: int
    proc: subprocess.Popen[str]
    log: Path

    @classmethod
    async def start(cls, dev: DevEndpoint, engine: str) -> QuickReceiver:
        port = dev.port
        log = dev.folder.parent / f"receiver-{port}.log"
        proc = await asyncio.to_thread(_spawn, dev, engine, log)
        me = cls(dev, port, proc, log)
        await wait_for(lambda: "receiver on" in me.output() or proc.poll() is not None, 30)
        assert proc.poll() is None, me.output()
        return me

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}/hooks"

    def receipt_key(self) -> dict[str, Any]:
        body = json.loads((self.dev.folder / "receipt-key.json").read_text())
        return {"keyId": body["keyId"], "publicKeyJwk": body["publicKeyJwk"]}

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


def _spawn(dev: DevEndpoint, engine: str, log: Path) -> subprocess.Popen[str]:
    with log.open("w") as out:
        return subprocess.Popen(
            [sys.executable, str(EXAMPLE), "--port", str(dev.port), "--dir", str(dev.folder)],
            env={**os.environ, "HOOKPROOF_URL": engine},
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )


async def subscribe(
    http: aiohttp.ClientSession, base: str, endpoint: str, receipt_key: dict[str, Any] | None
) -> str:
    """A subscription to ``order.created`` at ``endpoint``, ACTIVE (its id)."""
    body: dict[str, Any] = {
        "endpoint": endpoint,
        "topics": ["order.created"],
        "eventVersions": [1],
        "region": "local",
        "signatureAlgorithm": "ed25519",
        "owner": "dev",
        "retryPolicy": {"initialDelayS": 0.2, "maxDelayS": 1.0},
    }
    if receipt_key is not None:
        body["receiptKey"] = receipt_key
    async with http.post(f"{base}/v1/subscriptions", json=body) as r:
        doc = await r.json()
        assert r.status == 201, doc
    sid = str(doc["id"])

    async def state() -> dict[str, Any]:
        async with http.get(f"{base}/v1/subscriptions/{sid}") as r:
            return dict(await r.json())

    view = await state()
    for _ in range(300):
        if view["state"] == "ACTIVE":
            return sid
        await asyncio.sleep(0.1)
        view = await state()
    raise AssertionError(f"not ACTIVE: {view}")


async def wait_for(check: Any, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = check()
        if asyncio.iscoroutine(result):
            result = await result
        if result:
            return
        await asyncio.sleep(0.1)
    raise AssertionError("condition not reached")
