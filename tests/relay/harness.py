"""A real engine process, ``hookproof listen`` as a real process and a local receiver on the
subscriber SDK (plain HTTP on loopback), for the relay tests."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

from hookproof_subscriber import (
    Event,
    InMemoryStore,
    JwksKeyResolver,
    SigningKey,
    Subscriber,
    aiohttp_handler,
    public_jwk,
)
from tests.daemon import Daemon, free_port, run_cli, start_daemon

__all__ = [
    "Listener",
    "Receiver",
    "engine_env",
    "start_engine",
    "tenant",
    "until",
]


def engine_env(db_url: str, tmp: Path, **extra: str) -> dict[str, str]:
    return {
        "HOOKPROOF_DATABASE_URL": db_url,
        "HOOKPROOF_DATA_DIR": str(tmp),
        "HOOKPROOF_MASTER_KEY": base64.urlsafe_b64encode(b"r" * 32).decode().rstrip("="),
        "HOOKPROOF_DNS_SERVERS": "127.0.0.1:9",
        "HOOKPROOF_CONNECT_TIMEOUT": "1",
        "HOOKPROOF_REQUEST_TIMEOUT": "3",
        "HOOKPROOF_LEASE_MARGIN": "2",
        **extra,
    }


async def start_engine(env: dict[str, str], tmp: Path) -> Daemon:
    return await asyncio.to_thread(start_daemon, env, tmp)


async def tenant(env: dict[str, str], name: str) -> str:
    created = await asyncio.to_thread(run_cli, ["tenant", "create", name, "--json"], env)
    assert created.returncode == 0, created.stderr
    return str(json.loads(created.stdout.strip().splitlines()[-1])["token"])


@dataclass
class Receiver:
    """The developer's local receiver: the SDK verifies every request (signature, digest,
    challenge) and sends receipts to the engine; every answer is recorded."""

    engine: str
    key: SigningKey = field(default_factory=lambda: SigningKey.generate_ed25519("rk-local"))
    port: int = field(default_factory=free_port)
    effects: list[str] = field(default_factory=list)  # event ids applied, in order
    answers: list[tuple[str, str, int]] = field(default_factory=list)  # (delivery, attempt, status)
    runner: web.AppRunner | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/webhooks"

    def receipt_key(self) -> dict[str, Any]:
        return {"keyId": self.key.key_id, "publicKeyJwk": public_jwk(self.key)}

    async def start(self) -> None:
        def on_event(event: Event) -> None:
            self.effects.append(event.event_id)

        self.sdk = Subscriber(
            keys=JwksKeyResolver.for_engine(self.engine),
            on_event=on_event,
            endpoint=self.url,
            store=InMemoryStore(),
            receipt_key=self.key,
            receipts_url=f"{self.engine}/v1/receipts",
        )
        inner = aiohttp_handler(self.sdk)

        async def handle(request: web.Request) -> web.StreamResponse:
            resp = await inner(request)
            self.answers.append(
                (
                    request.headers.get("Webhook-Delivery-Id", ""),
                    request.headers.get("Webhook-Attempt", ""),
                    resp.status,
                )
            )
            return resp

        app = web.Application()
        app.router.add_post("/webhooks", handle)
        self.runner = web.AppRunner(app)
        await self.runner.setup()
        await web.TCPSite(self.runner, "127.0.0.1", self.port).start()

    async def stop(self) -> None:
        await self.sdk.drain()
        if self.runner is not None:
            await self.runner.cleanup()


@dataclass
class Listener:
    """``hookproof listen`` as a process; ``lines`` is what it printed."""

    proc: subprocess.Popen[str]
    lines: list[str]
    reader: asyncio.Task[None]

    @classmethod
    def start(cls, args: list[str], env: dict[str, str]) -> Listener:
        """Spawned from a running loop (what it prints is read on that loop)."""
        proc = subprocess.Popen(
            [sys.executable, "-m", "hookproof.engine.cli", "listen", *args],
            env={**os.environ, **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        lines: list[str] = []

        async def read() -> None:
            assert proc.stdout is not None
            while True:
                line = await asyncio.to_thread(proc.stdout.readline)
                if not line:
                    return
                lines.append(line.rstrip("\n"))

        return cls(proc, lines, asyncio.ensure_future(read()))

    async def first_line(self) -> str:
        await until(lambda: bool(self.lines) or self.proc.poll() is not None)
        assert self.lines, f"listen exited {self.proc.returncode} without a word"
        return self.lines[0]

    async def wait(self, timeout: float = 30) -> int:
        """Its exit code, once it ends by itself (and what it printed is read)."""
        code = await asyncio.to_thread(self.proc.wait, timeout)
        await self.reader
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        return int(code)

    async def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return await self.wait(20)


async def until(check: Any, timeout: float = 90) -> None:
    for _ in range(int(timeout * 10)):
        if check():
            return
        await asyncio.sleep(0.1)
    raise AssertionError("condition not reached")
