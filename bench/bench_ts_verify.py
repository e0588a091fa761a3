"""Verification of a 1 KiB delivery: the TypeScript SDK in Node.js against the Python SDK.

Cases (signed by the engine's ``sign_headers``): ``hookproof.sig.v1`` ed25519,
``hookproof.sig.v1`` hmac-sha256, ``standard-webhooks.v1`` hmac (``v1``). Two levels each:

- ``full``: TS ``verifyDelivery`` (profile detection, key lookup, verification, body parsed
  into the event) vs Python ``averify_any`` + ``Event.from_delivery`` (what ``Subscriber.handle``
  does before applying);
- ``core``: TS ``verifyRequest`` vs Python ``verify_request`` (one RFC 9421 profile, key given).

No replay cache on either side (the same request is verified again and again). Node and
Python runs alternate (A/B) ``--rounds`` times; each figure is a median of 5 timed batches of
``--n`` verifications after a warm-up. Load average before and after is recorded.

    .venv/bin/python bench/bench_ts_verify.py [--n 2000] [--rounds 3] [--out bench/results/s6_ts_verify.json]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import hashlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from hookproof.engine.ingest.ingest import canonical_body
from hookproof.engine.keys.signing import Signer, sign_headers
from hookproof.schemas.api import EventIn
from hookproof_subscriber import (
    Event,
    SigningKey,
    StaticKeyResolver,
    VerificationKey,
    averify_any,
    public_jwk,
    verify_request,
)

ROOT = Path(__file__).resolve().parent.parent
TS = ROOT / "subscriber-ts"
URL = "https://hooks.example.com/hookproof/orders"
NOW = 1_764_590_400
SECRET = hashlib.sha256(b"bench secret").digest()
ED = SigningKey("ek_bench", "ed25519", Ed25519PrivateKey.from_private_bytes(b"\x11" * 32))
HM = SigningKey.hmac("hk_bench", SECRET)


def _body() -> bytes:
    """A canonical delivery body of 1,024 bytes."""
    pad = 0
    while True:
        doc = {
            "eventId": "evt_bench_1",
            "topic": "order.created",
            "version": "1.0",
            "aggregateId": "order-1",
            "aggregateVersion": 1,
            "occurredAt": "2025-12-01T12:00:00Z",
            "payload": {"note": "x" * pad, "amount": 4200},
        }
        body = canonical_body(msgspec.convert(doc, EventIn))
        if len(body) >= 1024:
            assert len(body) == 1024, len(body)
            return body
        pad += 1


def cases() -> list[dict[str, Any]]:
    body = _body()
    jwks = {"keys": [{**public_jwk(ED), "state": "ACTIVE"}]}
    out = []
    for name, profile, key, keys in [
        ("sig.v1 ed25519", "hookproof.sig.v1", ED, {"jwks": jwks}),
        (
            "sig.v1 hmac-sha256",
            "hookproof.sig.v1",
            HM,
            {"secret": base64.b64encode(SECRET).decode()},
        ),
        (
            "standard-webhooks.v1 hmac",
            "standard-webhooks.v1",
            HM,
            {"secret": "whsec_" + base64.b64encode(SECRET).decode()},
        ),
    ]:
        headers = {
            "Content-Type": "application/json",
            "Webhook-Id": "evt_bench_1",
            "Webhook-Delivery-Id": "dlv_1",
            "Webhook-Attempt": "1",
            "Webhook-Subscription": "sub_1",
            "Webhook-Generation": "1",
        }
        headers.update(
            sign_headers(
                "POST", URL, headers, body, [Signer(profile, key)], created=NOW, lifetime=300
            )
        )
        out.append(
            {
                "name": name,
                "profile": profile,
                "url": URL,
                "now": NOW,
                "eventId": "evt_bench_1",
                "headers": {k.lower(): v for k, v in headers.items()},
                "body_b64": base64.b64encode(body).decode(),
                **keys,
            }
        )
    return out


class _AnyKey:
    def __init__(self, key: VerificationKey) -> None:
        self.key = key
        self.key_ids = [key.key_id]

    def resolve(self, key_id: str) -> VerificationKey | None:
        return self.key


def _time(run: Any, n: int) -> dict[str, float]:
    """``run(k)`` verifies k times; a warm-up, then 5 timed batches of n."""
    run(min(n, 500))
    rounds, cpu = [], []
    for _ in range(5):
        c0 = time.process_time()
        t0 = time.perf_counter()
        run(n)
        rounds.append((time.perf_counter() - t0) / n * 1e6)
        cpu.append((time.process_time() - c0) / n * 1e6)
    rounds.sort()
    cpu.sort()
    return {
        "median_us": rounds[2],
        "min_us": rounds[0],
        "max_us": rounds[4],
        "cpu_median_us": cpu[2],
    }


def python_run(cs: list[dict[str, Any]], n: int) -> dict[str, Any]:
    out: dict[str, Any] = {"python": platform.python_version(), "n": n, "cases": {}}
    loop = asyncio.new_event_loop()
    try:
        for c in cs:
            body = base64.b64decode(c["body_b64"])
            if "jwks" in c:
                vk = VerificationKey.ed25519("ek_bench", ED.verification_key().public_key)
            else:
                vk = VerificationKey.hmac("hk_bench", SECRET)
            keys = _AnyKey(vk) if "secret" in c else StaticKeyResolver([vk])

            async def full_many(
                k: int, c: dict[str, Any] = c, body: bytes = body, keys: Any = keys
            ) -> None:
                for _ in range(k):  # one event loop run per batch, as a server awaits them
                    res = await averify_any(
                        "POST",
                        c["url"],
                        c["headers"],
                        body,
                        keys=keys,
                        now=c["now"],
                        nonce_cache=None,
                    )
                    assert res.ok, res.reason
                    Event.from_delivery(body, c["headers"])

            def full(k: int, many: Any = full_many) -> None:
                loop.run_until_complete(many(k))

            def core(k: int, body: bytes = body, keys: Any = keys, c: dict[str, Any] = c) -> None:
                for _ in range(k):
                    assert verify_request(
                        "POST", c["url"], c["headers"], body, keys=keys, now=c["now"]
                    ).ok

            entry = {"body_bytes": len(body), "full": _time(full, n)}
            if c["profile"] == "hookproof.sig.v1":
                entry["core"] = _time(core, n)
            out["cases"][c["name"]] = entry
    finally:
        loop.close()
    return out


def node_run(path: str, n: int) -> dict[str, Any]:
    proc = subprocess.run(
        ["node", str(TS / "bench" / "bench_verify.mjs"), path, str(n)],
        check=True,
        capture_output=True,
        text=True,
        timeout=600,
    )
    raw = json.loads(proc.stdout)
    for entry in raw["cases"].values():
        entry["full"] = entry.pop("verifyDelivery")
        if "verifyRequest" in entry:
            entry["core"] = entry.pop("verifyRequest")
    return raw


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "s6_ts_verify.json"))
    args = ap.parse_args()
    subprocess.run(
        ["node", str(TS / "node_modules" / "typescript" / "bin" / "tsc"), "-p", "tsconfig.json"],
        cwd=TS,
        check=True,
    )
    cs = cases()
    load_before = os.getloadavg()
    runs: list[dict[str, Any]] = []
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(cs, f)
        path = f.name
    try:
        for r in range(args.rounds):
            runs.append({"round": r, "side": "node", **node_run(path, args.n)})
            runs.append({"round": r, "side": "python", **python_run(cs, args.n)})
    finally:
        os.unlink(path)
    summary: dict[str, Any] = {}
    for c in cs:
        for level in ("full", "core"):
            row = {}
            for side in ("node", "python"):
                cpu = [
                    run["cases"][c["name"]][level]["cpu_median_us"]
                    for run in runs
                    if run["side"] == side and level in run["cases"][c["name"]]
                ]
                vals = [
                    run["cases"][c["name"]][level]["median_us"]
                    for run in runs
                    if run["side"] == side and level in run["cases"][c["name"]]
                ]
                if vals:
                    row[f"{side}_us"] = round(statistics.median(vals), 2)
                    row[f"{side}_per_s"] = round(1e6 / statistics.median(vals))
                    row[f"{side}_cpu_us"] = round(statistics.median(cpu), 2)
            if row:
                row["python_over_node"] = round(row["python_us"] / row["node_us"], 2)
                row["python_over_node_cpu"] = round(row["python_cpu_us"] / row["node_cpu_us"], 2)
                summary[f"{c['name']} / {level}"] = row
    doc = {
        "benchmark": "verification of a 1 KiB delivery, TypeScript SDK (Node.js) vs Python SDK",
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
        "load_avg_before": load_before,
        "load_avg_after": os.getloadavg(),
        "n_per_batch": args.n,
        "rounds": args.rounds,
        "summary_median_us": summary,
        "runs": runs,
    }
    Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")
    print(json.dumps({"summary": summary, "load": [load_before, doc["load_avg_after"]]}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
