"""The TypeScript SDK end to end: the engine (real Postgres, its API on a real aiohttp server)
delivers over real HTTPS (trustme) to a Node.js subscriber built only on ``hookproof-subscriber``
(``subscriber-ts/examples/e2e-subscriber.mjs``), which answers the challenge, verifies every
delivery and sends signed receipts back; the deliveries reach APPLICATION_CONFIRMED. A delivery
replayed with one body byte changed is refused with ``digest_mismatch``."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import shutil
import ssl
import subprocess
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import aiohttp
import msgspec
import pytest
import trustme
from cryptography.hazmat.primitives import serialization

from hookproof.config import Settings
from hookproof.engine.runtime.daemon import Engine
from hookproof.schemas.api import SubscriptionCreate
from hookproof_subscriber import SigningKey, public_jwk
from hookproof_subscriber.keys import b64url_encode
from tests.parallel import once_per_run
from tests.receipts.harness import (
    Api,
    api,
    ca,
    delivery,
    dispatch_all,
    engine,
    publish,
    receipt_key_body,
    tenant_token,
)
from tests.support import loopback_settings

__all__ = ["api", "ca", "engine", "tenant_token"]

TS = Path(__file__).resolve().parents[2] / "subscriber-ts"
SUBSCRIBER = TS / "examples" / "e2e-subscriber.mjs"
JWKS_PATH = "/.well-known/hookproof/jwks.json"


@pytest.fixture(scope="session")
def ts_sdk() -> Path:
    """The SDK compiled from its sources (``tsc`` from ``node_modules``: no network)."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the TypeScript SDK cannot run")
    tsc = TS / "node_modules" / "typescript" / "bin" / "tsc"
    if not tsc.exists():
        pytest.skip("subscriber-ts is not installed: run `npm ci` in subscriber-ts (.ci/run does)")
    built = TS / "dist" / "index.js"

    def build() -> Path:
        subprocess.run(["node", str(tsc), "-p", "tsconfig.json"], cwd=TS, check=True, timeout=120)
        return built

    # once per run, whichever xdist worker needs it first (the others wait, never read it
    # half-written): tests/parallel.py
    return once_per_run("subscriber-ts/dist", build, lambda: built)


class NodeSubscriber:
    """The Node.js subscriber process: config lines in, one JSON line per happening out."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.lines: list[dict[str, Any]] = []
        self.port = 0
        self._changed = asyncio.Event()
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        async for raw in self.proc.stdout:
            self.lines.append(json.loads(raw))
            self._changed.set()

    async def wait_for(
        self, pred: Callable[[list[dict[str, Any]]], bool], timeout: float = 20.0
    ) -> list[dict[str, Any]]:
        async with asyncio.timeout(timeout):
            while not pred(self.lines):
                self._changed.clear()
                if self.proc.returncode is not None:
                    raise AssertionError(f"node subscriber exited: {self.proc.returncode}")
                await self._changed.wait()
        return self.lines

    def events(self, kind: str) -> list[dict[str, Any]]:
        return [line for line in self.lines if line.get("event") == kind]

    async def configure(self, **cfg: Any) -> None:
        assert self.proc.stdin is not None
        before = len(self.events("configured"))
        self.proc.stdin.write((json.dumps(cfg) + "\n").encode())
        await self.proc.stdin.drain()
        await self.wait_for(lambda _: len(self.events("configured")) > before)


@pytest.fixture
async def node(ts_sdk: Path, ca: trustme.CA, tmp_path: Path) -> AsyncIterator[NodeSubscriber]:
    cert = ca.issue_cert("127.0.0.1")
    cert_file, key_file = tmp_path / "node-cert.pem", tmp_path / "node-key.pem"
    cert.cert_chain_pems[0].write_to_path(str(cert_file))
    cert.private_key_pem.write_to_path(str(key_file))
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOOKPROOF_TLS_CERT": str(cert_file),
        "HOOKPROOF_TLS_KEY": str(key_file),
    }
    proc = await asyncio.create_subprocess_exec(
        "node",
        str(SUBSCRIBER),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        env=env,
    )
    sub = NodeSubscriber(proc)
    lines = await sub.wait_for(lambda ls: any("port" in line for line in ls))
    sub.port = next(line["port"] for line in lines if "port" in line)
    try:
        yield sub
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            async with asyncio.timeout(5):
                await proc.wait()
        except TimeoutError:
            proc.kill()
            await proc.wait()
        sub._reader.cancel()


@pytest.fixture
def settings(node: NodeSubscriber, ca: trustme.CA, tmp_path: Path) -> Settings:
    """Egress allowed to exactly the Node.js subscriber's port."""
    return loopback_settings(node.port, ca, tmp_path, request_timeout_s=3.0)


def _private_jwk(key: SigningKey) -> dict[str, Any]:
    assert key.private_key is not None
    d = key.private_key.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )
    return {**public_jwk(key), "d": b64url_encode(d)}


async def _subscribe(
    engine: Engine,
    api: Api,
    node: NodeSubscriber,
    tenant: str,
    path: str,
    *,
    algorithm: str,
    profile: str,
    receipt_key: SigningKey,
) -> str:
    """Register, hand the Node.js subscriber its keys (the secret once, for hmac), challenge."""
    url = f"https://127.0.0.1:{node.port}/{path}"
    body: dict[str, Any] = {
        "endpoint": url,
        "topics": ["order.created"],
        "eventVersions": [1],
        "region": "eu",
        "signatureAlgorithm": algorithm,
        "signatureProfile": profile,
        "owner": "team-orders",
        "receiptKey": receipt_key_body(receipt_key),
    }
    state, secret = await engine.subscriptions.register(
        tenant, msgspec.convert(body, SubscriptionCreate), actor="test"
    )
    cfg: dict[str, Any] = {
        "path": f"/{path}",
        "endpoint": url,
        "receiptPrivateJwk": _private_jwk(receipt_key),
        "receiptsUrl": api.receipts_url,
        "subscriptionId": state.subscription_id,
    }
    if secret is not None:
        cfg["secret"] = base64.b64encode(secret).decode()
    else:
        cfg["jwksUrl"] = api.base + JWKS_PATH
    await node.configure(**cfg)
    outcome = await engine.services.challenger.run(state.subscription_id, actor="test")
    assert outcome["passed"], outcome
    return state.subscription_id


@pytest.mark.parametrize(
    ("algorithm", "profile"),
    [
        ("ed25519", "hookproof.sig.v1"),
        ("hmac-sha256", "hookproof.sig.v1"),
        ("hmac-sha256", "standard-webhooks.v1"),
    ],
)
async def test_node_subscriber_reaches_application_confirmed(
    engine: Engine,
    api: Api,
    node: NodeSubscriber,
    ca: trustme.CA,
    tenant_token: tuple[str, str],
    algorithm: str,
    profile: str,
) -> None:
    tenant, token = tenant_token
    rk = SigningKey.generate_ed25519("rk-node")
    await _subscribe(
        engine, api, node, tenant, "orders", algorithm=algorithm, profile=profile, receipt_key=rk
    )
    assert [(c["status"], c["reason"]) for c in node.events("challenge")] == [(200, "ok")]

    ids = []
    for v in (1, 2, 3):
        result = await publish(engine, tenant, f"evt-{v}", aggregateVersion=v)
        ids.extend(d["deliveryId"] for d in result.deliveries)
    assert await dispatch_all(engine) == 3
    await node.wait_for(lambda _: len(node.events("receipt")) == 3)
    assert sorted(r["status"] for r in node.events("receipt")) == [201, 201, 201]
    seen = node.events("delivery")
    assert sorted(d["eventId"] for d in seen) == ["evt-1", "evt-2", "evt-3"]
    assert {d["profile"] for d in seen} == {profile}
    assert node.events("refused") == []
    for delivery_id in ids:
        status, view = await api.call("GET", f"/v1/deliveries/{delivery_id}", token=token)
        assert status == 200
        assert view["state"] == "APPLICATION_CONFIRMED", view
        assert view["evidence"] == {"endpoint": "ENDPOINT_ACCEPTED", "application": "CONFIRMED"}
        assert view["applicationReceipt"]["receiptKeyId"] == "rk-node"
        assert view["applicationReceipt"]["result"] == "applied"

    # a delivery replayed with one body byte changed: refused, digest_mismatch (sig.v1); the
    # intact replay: refused, replayed_nonce (the same signature's nonce was spent)
    first = seen[0]
    raw = first["headers"]
    headers = [(raw[i], raw[i + 1]) for i in range(0, len(raw), 2) if raw[i].lower() != "host"]
    body = base64.b64decode(first["body_b64"])
    altered = body.replace(b'"amount":42', b'"amount":43')
    assert altered != body
    ctx = ssl.create_default_context()
    ca.configure_trust(ctx)
    want = "digest_mismatch" if profile == "hookproof.sig.v1" else "bad_signature"
    async with aiohttp.ClientSession() as session:
        for payload, code in ((altered, want), (body, "replayed_nonce")):
            async with session.post(
                f"https://127.0.0.1:{node.port}/orders", data=payload, headers=headers, ssl=ctx
            ) as resp:
                assert resp.status == 401
                assert (await resp.json(content_type=None))["code"] == code
    assert [r["code"] for r in node.events("refused")] == [want, "replayed_nonce"]
    _, view = await api.call("GET", f"/v1/deliveries/{ids[0]}", token=token)
    assert view["state"] == "APPLICATION_CONFIRMED"


async def test_node_subscriber_refuses_an_engine_delivery_for_another_subscription(
    engine: Engine, api: Api, node: NodeSubscriber, tenant_token: tuple[str, str]
) -> None:
    """The subscriber pins its subscription id: a validly signed delivery for another one is
    refused (``bad_signature``), the engine records the 401, and nothing is confirmed."""
    tenant, token = tenant_token
    rk = SigningKey.generate_ed25519("rk-node")
    sid = await _subscribe(
        engine,
        api,
        node,
        tenant,
        "orders",
        algorithm="ed25519",
        profile="hookproof.sig.v1",
        receipt_key=rk,
    )
    cfg = {
        "path": "/orders",
        "endpoint": f"https://127.0.0.1:{node.port}/orders",
        "jwksUrl": api.base + JWKS_PATH,
        "subscriptionId": sid + "-other",
    }
    await node.configure(**cfg)
    [d] = (await publish(engine, tenant, "evt-9")).deliveries
    await dispatch_all(engine)
    await node.wait_for(lambda _: len(node.events("refused")) == 1)
    assert node.events("refused")[0]["code"] == "bad_signature"
    view = await delivery(engine, tenant, d["deliveryId"])
    assert view["state"] != "APPLICATION_CONFIRMED"
    assert view["attempts"][0]["outcome"] != "ENDPOINT_ACCEPTED"
