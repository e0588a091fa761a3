"""Per-event cost of the delivery ledger fold (``evolve_delivery``), in process, no database.

A generated list of delivery streams (the rebuild benchmark's mix: planned, admitted,
accepted, every 10th with a failed first attempt; plus receipts confirmed, unknown-transport
outcomes, and dead letter / replay) is folded by ``evolve_delivery`` of the working tree and
of each git ref given (``projections/deliveries.py`` and, where it exists, ``ledger.py`` taken
from that ref). Rounds interleave the variants so a loaded machine slows them alike; the
median and best round are reported as CPU nanoseconds per event, for the rebuild path
(``reuse=True``, rows updated in place) and the incremental path (a copy per event).

    .venv/bin/python bench/bench_ledger_fold.py [--deliveries 5000] [--rounds 30]
        [--ref ef9b0bc^] [--out bench/results/ledger_fold.json]
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import types
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import hookproof.projections.base as base
from hookproof.events import Event
from hookproof.events.delivery_events import (
    ApplicationConfirmed,
    AttemptAdmitted,
    AttemptFailed,
    DeadLettered,
    DeliveryPlanned,
    DeliveryReplayRequested,
    EndpointAccepted,
)
from hookproof.projections.deliveries import evolve_delivery

ROOT = Path(__file__).resolve().parent.parent
Fold = Callable[..., dict[str, Any]]


def streams(count: int) -> list[list[Event]]:
    """``count`` delivery streams, each a list of events in stream order."""
    base_at = datetime(2026, 1, 1, tzinfo=UTC)
    out = []
    for n in range(count):
        did = f"dlv_{n:028x}"
        at = (base_at + timedelta(milliseconds=n)).isoformat()
        later = (base_at + timedelta(milliseconds=n + 40)).isoformat()
        admitted = dict(
            delivery_id=did,
            generation=1,
            subscription_version=4,
            endpoint=f"https://hooks.example/sub_{n % 500:05d}",
            payload_digest="sha-256=:q1hC2n3rYVNkE3vO7GxZ6w==:",
            key_id="key_engine_2",
            key_generation=2,
            signature_alg="ed25519",
            dispatcher="worker-1",
            lease_until=later,
            at=at,
        )
        evs: list[Event] = [
            DeliveryPlanned(
                delivery_id=did,
                event_id=f"evt-{n:08d}",
                subscription_id=f"sub_{n % 500:05d}",
                tenant_id="tenant-1",
                generation=1,
                endpoint=f"https://hooks.example/sub_{n % 500:05d}",
                endpoint_digest="sha-256=:x:",
                payload_digest="sha-256=:q1hC2n3rYVNkE3vO7GxZ6w==:",
                topic="order.created",
                owner="team-orders",
                receipts=n % 4 == 0,
                max_attempts=8,
                at=at,
            ),
            AttemptAdmitted(attempt=1, **admitted),
        ]
        attempt = 1

        def failed(
            outcome: str, did: str = did, attempt: int = attempt, later: str = later
        ) -> AttemptFailed:
            return AttemptFailed(
                delivery_id=did,
                attempt=attempt,
                outcome=outcome,
                code="http_503" if outcome == "RETRYABLE" else "read_timeout",
                status=503 if outcome == "RETRYABLE" else None,
                request_written=True,
                retry_at=later,
                duration_ms=12.5,
                at=later,
            )

        if n % 50 == 7:  # dead letter, then replayed
            evs.append(failed("RETRYABLE"))
            evs.append(
                DeadLettered(
                    delivery_id=did,
                    attempt=attempt,
                    owner="team-orders",
                    reason="max_attempts",
                    replay="/v1/deliveries/x/replay",
                    at=later,
                )
            )
            evs.append(DeliveryReplayRequested(delivery_id=did, by="user:ops", at=later))
            attempt += 1
            evs.append(AttemptAdmitted(attempt=attempt, **{**admitted, "at": later}))
        elif n % 10 == 0 or n % 20 == 5:  # a failed or unknown first attempt
            evs.append(failed("RETRYABLE" if n % 10 == 0 else "UNKNOWN_TRANSPORT"))
            attempt += 1
            evs.append(AttemptAdmitted(attempt=attempt, **{**admitted, "at": later}))
        evs.append(
            EndpointAccepted(
                delivery_id=did,
                attempt=attempt,
                status=204,
                peer_address="203.0.113.7",
                spki_sha256=None,
                duration_ms=8.25,
                at=later,
            )
        )
        if n % 4 == 0:
            evs.append(
                ApplicationConfirmed(
                    delivery_id=did,
                    event_id=f"evt-{n:08d}",
                    subscription_id=f"sub_{n % 500:05d}",
                    payload_digest="sha-256=:q1hC2n3rYVNkE3vO7GxZ6w==:",
                    operation_id="op-1",
                    result="applied",
                    applied_at=later,
                    receipt_key_id="rk_1",
                    receipt_key_generation=1,
                    receipt_digest="sha-256=:r:",
                    at=later,
                )
            )
        out.append(evs)
    return out


def fold_at(ref: str, scratch: Path) -> Fold:
    """``evolve_delivery`` as the projections package had it at git ``ref``."""
    pkg = f"_fold_{len(sys.modules)}"
    folder = scratch / pkg
    folder.mkdir()
    for name in ("deliveries.py", "ledger.py"):
        shown = subprocess.run(
            ["git", "show", f"{ref}:projections/{name}"], cwd=ROOT, capture_output=True
        )
        if shown.returncode == 0:
            (folder / name).write_bytes(shown.stdout)
        elif name == "deliveries.py":
            raise SystemExit(f"{ref}: no projections/deliveries.py")
    module = types.ModuleType(pkg)
    module.__path__ = [str(folder)]
    sys.modules[pkg] = module
    sys.modules[f"{pkg}.base"] = base  # Projection/Row only
    fold: Fold = importlib.import_module(f"{pkg}.deliveries").evolve_delivery
    return fold


def one_round(fold: Fold, data: list[list[Event]], reuse: bool) -> float:
    """CPU seconds of this process for one fold of ``data`` (a shared machine's other load
    steals wall time, not this process's CPU time)."""
    started = time.process_time()
    for evs in data:
        row = None
        for version, ev in enumerate(evs, 1):
            row = fold(row, ev, version, reuse=reuse)
    return time.process_time() - started


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--deliveries", type=int, default=5_000)
    p.add_argument("--rounds", type=int, default=30)
    p.add_argument("--ref", action="append", default=None, help="git ref(s) to compare")
    p.add_argument("--out", default=str(ROOT / "bench" / "results" / "ledger_fold.json"))
    args = p.parse_args(argv)
    refs = args.ref or ["ef9b0bc^"]
    data = streams(args.deliveries)
    events = sum(map(len, data))
    with tempfile.TemporaryDirectory(prefix="hp-fold-") as scratch:
        variants: dict[str, Fold] = {ref: fold_at(ref, Path(scratch)) for ref in refs}
        variants["working tree"] = evolve_delivery
        # every variant must compute the same rows (the old fold has no ordering columns)
        for name, fold in variants.items():
            for evs in data[:200]:
                row = mine = None
                for v, ev in enumerate(evs, 1):
                    row, mine = fold(row, ev, v), evolve_delivery(mine, ev, v)
                assert row is not None and mine is not None
                assert {k: mine[k] for k in row} == row, name
        results: dict[str, Any] = {}
        for reuse in (True, False):
            times: dict[str, list[float]] = {name: [] for name in variants}
            for _ in range(args.rounds):
                for name, fold in variants.items():
                    times[name].append(one_round(fold, data, reuse))
            path = "rebuild (reuse=True)" if reuse else "incremental (copy per event)"
            results[path] = {
                name: {
                    "cpuNsPerEventMedian": round(statistics.median(t) / events * 1e9, 1),
                    "cpuNsPerEventBest": round(min(t) / events * 1e9, 1),
                }
                for name, t in times.items()
            }
            now = results[path]["working tree"]
            for ref in refs:
                old = results[path][ref]
                # speed of the working tree relative to ref (>1: faster)
                results[path][f"speedVs[{ref}]"] = {
                    "median": round(old["cpuNsPerEventMedian"] / now["cpuNsPerEventMedian"], 3),
                    "best": round(old["cpuNsPerEventBest"] / now["cpuNsPerEventBest"], 3),
                }
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    result = {
        "benchmark": "delivery ledger fold, in process (evolve_delivery per event)",
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "loadAverage1m": round(os.getloadavg()[0], 1),
        },
        "workingTreeHead": head,
        "refs": {
            ref: subprocess.run(
                ["git", "rev-parse", "--short", ref], cwd=ROOT, capture_output=True, text=True
            ).stdout.strip()
            for ref in refs
        },
        "deliveries": args.deliveries,
        "events": events,
        "rounds": args.rounds,
        "results": results,
    }
    text = json.dumps(result, indent=2)
    print(text)
    if args.out != "-":
        Path(args.out).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
