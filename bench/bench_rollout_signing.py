"""What a rollout costs per request: signing under one profile, both (dual window), the shadow
check (sign + verify the target beside the live path), and the admission's signing plan with
several live rollouts. 1 KiB body. Prints the JSON result and writes it to
``bench/results/rollout_signing.json``.

    python bench/bench_rollout_signing.py [--seconds 1.0] [--out PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hookproof.engine.keys.signing import Signer, sign_headers
from hookproof.engine.rollouts.dispatch import shadow_check
from hookproof.engine.rollouts.machine import Advance, Create, decide, evolve, plan_signing
from hookproof_subscriber import SigningKey, StaticKeyResolver, averify_any

URL = "https://subscriber.example.com/webhooks/hookproof"
BODY = b'{"type":"order.created","payload":"' + b"x" * 990 + b'"}'
NOW = int(time.time())
BASE = {
    "Content-Type": "application/json",
    "Webhook-Id": "evt_01HZX3Q6",
    "Webhook-Delivery-Id": "dlv_01HZX3Q7",
    "Webhook-Attempt": "1",
    "Webhook-Subscription": "sub_01HZX3Q5",
    "Webhook-Generation": "3",
}
ED = SigningKey.generate_ed25519("k-ed")
HM = SigningKey.hmac("k-hm", b"s" * 32)
SW, SIG = "standard-webhooks.v1", "hookproof.sig.v1"


def rate(fn: Any, seconds: float) -> float:
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(50):
            fn()
        n += 50
    return round(n / (time.perf_counter() - start), 1)


def arate(fn: Any, seconds: float) -> float:
    async def go() -> float:
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            for _ in range(50):
                await fn()
            n += 50
        return round(n / (time.perf_counter() - start), 1)

    return asyncio.run(go())


def signer(*signers: Signer) -> Any:
    return lambda: sign_headers("POST", URL, BASE, BODY, list(signers), created=NOW, lifetime=300)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument(
        "--out", default=str(Path(__file__).parent / "results" / "rollout_signing.json")
    )
    args = ap.parse_args()
    s = args.seconds
    results: dict[str, Any] = {}
    for name, k in (("ed25519", ED), ("hmac-sha256", HM)):
        results[f"sign_sig_v1_{name}_per_s"] = rate(signer(Signer(SIG, k)), s)
        results[f"sign_standard_{name}_per_s"] = rate(signer(Signer(SW, k)), s)
        results[f"sign_dual_{name}_per_s"] = rate(signer(Signer(SW, k), Signer(SIG, k)), s)
    dual = {**BASE, **signer(Signer(SW, ED), Signer(SIG, ED))()}
    keys = StaticKeyResolver([ED.verification_key()])
    results["verify_dual_ed25519_per_s"] = arate(
        lambda: averify_any("POST", URL, dual, BODY, keys=keys, now=NOW), s
    )
    results["shadow_check_ed25519_per_s"] = arate(
        lambda: shadow_check(URL, BASE, BODY, Signer(SIG, ED), created=NOW, lifetime=300), s
    )
    t0 = datetime.now(UTC)
    views = []
    for i in range(10):
        v = None
        for cmd in (
            Create(
                rollout_id=f"ro_{i}",
                target_kind="signatureProfile",
                target=SIG,
                source_key_id="k",
                subscriptions=[f"sub_{j}" for j in range(i, 1000, 10)],
                internal=[],
                dual_window_s=3600,
                at=t0,
            ),
            Advance(stage="INTERNAL", percent=None, at=t0),
            Advance(stage="CUTOVER", percent=50, at=t0),
        ):
            for e in decide(v, cmd):
                v = evolve(v, e)
        views.append(v)
    results["plan_signing_10_rollouts_per_s"] = rate(
        lambda: plan_signing(views, "sub_517", SW, "ed25519", t0), s
    )
    doc = {
        "benchmark": "rollout_signing",
        "body_bytes": len(BODY),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "seconds_per_measure": s,
        "cpus": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),  # a shared machine: read rates with it
        "results": results,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(doc, indent=2) + "\n")
    print(json.dumps(doc, indent=2))


if __name__ == "__main__":
    main()
