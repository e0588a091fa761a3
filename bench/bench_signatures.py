"""Signature benchmark and the 1,000,000-mutation release gate for ``hookproof.sig.v1``.

Measures sign/s and verify/s for ed25519 and hmac-sha256 with a 1 KiB body, then verifies
N single-byte mutations (replace / delete / insert) of signed requests, spread over the
body, the covered header values, the target URI, the method, Signature-Input and Signature,
with hmac and ed25519 mixed, in worker processes. The gate passes when 0 are accepted and
every unmutated control verifies. Prints the JSON result and writes it to
``bench/results/signatures.json``.

    python bench/bench_signatures.py [--mutations 1000000] [--workers 2] [--out PATH]
"""

from __future__ import annotations

import argparse
import collections
import json
import multiprocessing as mp
import os
import platform
import random
import sys
import time
from pathlib import Path
from typing import Any

from hookproof_subscriber import (
    NonceCache,
    SigningKey,
    StaticKeyResolver,
    sign_request,
    verify_request,
)

NOW = 1_700_000_000
URL = "https://subscriber.example.com/webhooks/hookproof?tenant=acme"
HEADERS = {
    "Content-Type": "application/json",
    "Webhook-Id": "evt_01HZX3Q6",
    "Webhook-Delivery-Id": "dlv_01HZX3Q7",
    "Webhook-Attempt": "1",
    "Webhook-Subscription": "sub_01HZX3Q8",
    "Webhook-Generation": "3",
}
COVERED = [
    "Content-Digest",
    "Content-Type",
    "Webhook-Id",
    "Webhook-Delivery-Id",
    "Webhook-Subscription",
    "Webhook-Generation",
]
# target -> weight
TARGETS = {"body": 15, "header": 30, "url": 5, "method": 2, "signature-input": 25, "signature": 23}
BASE_MESSAGES = 32
PRINTABLE = bytes(range(0x21, 0x7F))


def _body(i: int) -> bytes:
    """A canonical JSON delivery body of exactly 1024 bytes."""
    head = (
        f'{{"type":"order.created","eventId":"evt_{i:06d}","version":"1.0",'
        f'"aggregateId":"ord_{i:06d}","aggregateVersion":{i + 1},'
        f'"occurredAt":"2023-11-14T22:13:20Z","payload":{{"note":"'
    ).encode()
    tail = b'"}}'
    return head + b"x" * (1024 - len(head) - len(tail)) + tail


def _keys() -> tuple[list[SigningKey], StaticKeyResolver]:
    rnd = random.Random(9421)
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    keys = [
        SigningKey.ed25519("engine-ed-1", Ed25519PrivateKey.from_private_bytes(rnd.randbytes(32))),
        SigningKey.ed25519("engine-ed-2", Ed25519PrivateKey.from_private_bytes(rnd.randbytes(32))),
        SigningKey.hmac("sub-hmac-1", rnd.randbytes(32)),
        SigningKey.hmac("sub-hmac-2", rnd.randbytes(64)),
    ]
    return keys, StaticKeyResolver(k.verification_key() for k in keys)


def _messages(keys: list[SigningKey]) -> list[tuple[str, dict[str, str], bytes]]:
    out = []
    for i in range(BASE_MESSAGES):
        key = keys[i % len(keys)]
        body = _body(i)
        headers = dict(HEADERS, **{"Webhook-Id": f"evt_{i:06d}"})
        headers.update(
            sign_request(
                "POST",
                URL,
                headers,
                body,
                key=key,
                created=NOW,
                expires=NOW + 300,
                nonce=f"nonce-{i:04d}-q8Xr",
            )
        )
        out.append((key.alg, headers, body))
    return out


def throughput(seconds: float = 2.0) -> dict[str, dict[str, float]]:
    keys, resolver = _keys()
    body = _body(0)
    out: dict[str, dict[str, float]] = {}
    for key in (keys[0], keys[2]):
        headers = dict(HEADERS)
        n, t0 = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - t0) < seconds:
            for _ in range(200):
                sign_request(
                    "POST",
                    URL,
                    headers,
                    body,
                    key=key,
                    created=NOW,
                    expires=NOW + 300,
                    nonce=f"n{n}",
                )
                n += 1
        sign_rate = n / elapsed
        signed = [
            dict(
                headers,
                **sign_request(
                    "POST",
                    URL,
                    headers,
                    body,
                    key=key,
                    created=NOW,
                    expires=NOW + 300,
                    nonce=f"n{i}",
                ),
            )
            for i in range(1000)
        ]
        cache = NonceCache(max_entries=10_000)
        n, ok, t0 = 0, 0, time.perf_counter()
        while (elapsed := time.perf_counter() - t0) < seconds:
            for _ in range(200):
                # each distinct nonce is verified once with the cache, as in production
                res = verify_request(
                    "POST",
                    URL,
                    signed[n % 1000],
                    body,
                    keys=resolver,
                    now=NOW,
                    nonce_cache=cache if n < 1000 else None,
                )
                ok += res.ok
                n += 1
        assert ok == n, "throughput run must verify every signature"
        out[key.alg] = {"sign_per_s": round(sign_rate), "verify_per_s": round(n / elapsed)}
    return out


def library_reference(seconds: float = 2.0) -> dict[str, dict[str, float]]:
    """The same sign/verify done by ``http-message-signatures`` (verify: signature only).

    Why signing stays on our fast path: the library's signer is an order of magnitude
    slower and cannot emit the profile's parameter order (tests/sig/test_library.py).
    """
    import datetime

    from hookproof_subscriber import PROFILE_COMPONENTS
    from hookproof_subscriber.hms import LibraryMessage, library_signer, library_verify

    keys, _ = _keys()
    body = _body(0)
    created = datetime.datetime.fromtimestamp(NOW, datetime.UTC)
    expires = datetime.datetime.fromtimestamp(NOW + 300, datetime.UTC)
    out: dict[str, dict[str, float]] = {}
    for key in (keys[0], keys[2]):
        signer = library_signer(key)

        def sign(i: int, signer: Any = signer, key: SigningKey = key) -> dict[str, str]:
            msg = LibraryMessage("POST", URL, dict(HEADERS))
            signer.sign(
                msg,
                key_id=key.key_id,
                created=created,
                expires=expires,
                nonce=f"n{i}",
                label="hookproof",
                tag="hookproof.sig.v1",
                covered_component_ids=PROFILE_COMPONENTS,
                body=body,
            )
            return msg.headers

        n, t0 = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - t0) < seconds:
            for _ in range(50):
                sign(n)
                n += 1
        sign_rate = n / elapsed
        signed = [sign(i) for i in range(200)]
        vkey = key.verification_key()
        n, ok, t0 = 0, 0, time.perf_counter()
        while (elapsed := time.perf_counter() - t0) < seconds:
            for _ in range(50):
                ok += library_verify(
                    "POST",
                    URL,
                    signed[n % 200],
                    label="hookproof",
                    tag="hookproof.sig.v1",
                    key=vkey,
                )
                n += 1
        assert ok == n, "the library must verify every signature"
        out[key.alg] = {"sign_per_s": round(sign_rate), "verify_per_s": round(n / elapsed)}
    return out


def _mutate(data: bytes, rnd: random.Random) -> bytes:
    """One byte replaced (mostly), deleted, or inserted (never a no-op)."""
    op = rnd.random()
    pos = rnd.randrange(len(data)) if data else 0
    if op < 0.8 and data:
        old = data[pos]
        while True:
            new = rnd.choice(PRINTABLE) if rnd.random() < 0.7 else rnd.randrange(256)
            if new != old:
                break
        return data[:pos] + bytes([new]) + data[pos + 1 :]
    if op < 0.9 and len(data) > 1:
        return data[:pos] + data[pos + 1 :]
    # insert a non-whitespace byte (whitespace at a value's edge would be a no-op)
    while True:
        new = rnd.randrange(256)
        if new not in (0x20, 0x09):
            break
    pos = rnd.randrange(len(data) + 1)
    return data[:pos] + bytes([new]) + data[pos:]


def _worker(args: tuple[int, int]) -> dict[str, Any]:
    worker_id, count = args
    keys, resolver = _keys()
    messages = _messages(keys)
    controls = sum(
        verify_request("POST", URL, h, b, keys=resolver, now=NOW).ok for _, h, b in messages
    )
    rnd = random.Random(1_000_003 * (worker_id + 1))
    names, weights = zip(*TARGETS.items(), strict=True)
    by_target: collections.Counter[str] = collections.Counter()
    by_reason: collections.Counter[str] = collections.Counter()
    by_alg: collections.Counter[str] = collections.Counter()
    accepted: list[dict[str, Any]] = []
    errors = 0
    for _ in range(count):
        alg, base_headers, body = messages[rnd.randrange(len(messages))]
        headers = dict(base_headers)
        method, url = "POST", URL
        target = rnd.choices(names, weights)[0]
        if target == "body":
            body = _mutate(body, rnd)
        elif target == "header":
            name = rnd.choice(COVERED)
            target = f"header:{name.lower()}"
            headers[name] = _mutate(headers[name].encode(), rnd).decode("latin-1")
        elif target == "url":
            url = _mutate(url.encode(), rnd).decode("latin-1")
        elif target == "method":
            method = _mutate(method.encode(), rnd).decode("latin-1")
        elif target == "signature-input":
            headers["Signature-Input"] = _mutate(headers["Signature-Input"].encode(), rnd).decode(
                "latin-1"
            )
        else:
            headers["Signature"] = _mutate(headers["Signature"].encode(), rnd).decode("latin-1")
        by_target[target] += 1
        by_alg[alg] += 1
        try:
            res = verify_request(method, url, headers, body, keys=resolver, now=NOW)
        except Exception:  # counted: the verifier must never raise
            errors += 1
            continue
        by_reason[str(res.reason)] += 1
        if res.ok and len(accepted) < 20:
            accepted.append({"target": target, "method": method, "url": url})
        elif res.ok:
            accepted.append({})
    return {
        "controls": controls,
        "control_total": len(messages),
        "by_target": by_target,
        "by_reason": by_reason,
        "by_alg": by_alg,
        "accepted": accepted,
        "errors": errors,
    }


def mutation_gate(total: int, workers: int) -> dict[str, Any]:
    shares = [total // workers + (1 if i < total % workers else 0) for i in range(workers)]
    t0 = time.perf_counter()
    with mp.get_context("fork").Pool(workers) as pool:
        parts = pool.map(_worker, list(enumerate(shares)))
    seconds = time.perf_counter() - t0
    agg: dict[str, collections.Counter[str]] = {
        k: collections.Counter() for k in ("by_target", "by_reason", "by_alg")
    }
    accepted: list[dict[str, Any]] = []
    errors = controls = control_total = 0
    for part in parts:
        for k in agg:
            agg[k].update(part[k])
        accepted += part["accepted"]
        errors += part["errors"]
        controls += part["controls"]
        control_total += part["control_total"]
    return {
        "mutations": total,
        "accepted": len(accepted),
        "accepted_examples": [a for a in accepted if a][:20],
        "exceptions": errors,
        "unmutated_controls_verified": f"{controls}/{control_total}",
        "workers": workers,
        "seconds": round(seconds, 1),
        "mutations_per_s": round(total / seconds),
        "goal_seconds": 120,
        "passed": not accepted and errors == 0 and controls == control_total,
        "by_target": dict(sorted(agg["by_target"].items())),
        "by_reason": dict(agg["by_reason"].most_common()),
        "by_alg": dict(sorted(agg["by_alg"].items())),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mutations", type=int, default=1_000_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=2.0, help="per throughput measurement")
    ap.add_argument(
        "--out", type=Path, default=Path(__file__).resolve().parent / "results" / "signatures.json"
    )
    ns = ap.parse_args(argv)
    result = {
        "benchmark": "hookproof.sig.v1 signatures",
        "body_bytes": 1024,
        "machine": {
            "cpus": os.cpu_count(),
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "processor": platform.machine(),
        },
        "throughput_single_core": throughput(ns.seconds),
        "library_reference_single_core": library_reference(ns.seconds),
        "mutation_gate": mutation_gate(ns.mutations, ns.workers),
        "finished_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    text = json.dumps(result, indent=2)
    print(text)
    ns.out.parent.mkdir(parents=True, exist_ok=True)
    ns.out.write_text(text + "\n")
    return 0 if result["mutation_gate"]["passed"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
