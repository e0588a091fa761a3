"""CPU per attempt of the send step's layers (issue 33): the old poster call against the new
destination port (typed attempt values, ``DestinationsByKind``, ``TracedDestination`` with
tracing off, the egress result turned into ``Evidence``).

Only the layers are measured: at the bottom both paths await the same coroutine returning one
prebuilt egress result (the egress itself, the signing and the recording are unchanged by the
port and are measured by ``bench_e2e.py``). Rounds alternate old and new; CPU time
(``time.process_time``), median of the rounds. Writes ``bench/results/s8_destination_port.json``.

    .venv/bin/python bench/bench_destination_port.py [--attempts 200000] [--rounds 7]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import time
from pathlib import Path
from typing import Any

from hookproof.engine.delivery.admission import ClaimRow
from hookproof.engine.delivery.outcome import breaker_success
from hookproof.engine.destinations.https.adapter import evidence_of
from hookproof.engine.destinations.port import (
    Evidence,
    PendingAttempt,
    SignedMessage,
    send_attempt,
)
from hookproof.engine.destinations.registry import DestinationsByKind, installed
from hookproof.engine.egress import EgressResult, Outcome
from hookproof.engine.observe.tracing import TracedDestination
from hookproof.events.subscription_events import RetryPolicy

OUT = Path(__file__).parent / "results" / "s8_destination_port.json"

ROW = ClaimRow(
    delivery_id="dlv_1",
    event_id="evt-1",
    tenant_id="ten_1",
    subscription_id="sub_1",
    generation=1,
    endpoint="https://hooks.example.test/h",
    endpoint_digest="ep",
    payload_digest="sha-256=:x:",
    owner="team",
    state="DISPATCHING",
    attempt=1,
    max_attempts=10,
    last_code=None,
    stream_version=2,
    sub_state="ACTIVE",
    sub_generation=1,
    sub_version=4,
    signature_algorithm="ed25519",
    signature_profile="hookproof.sig.v1",
    old_generation_policy="drain",
    retry_policy=RetryPolicy(max_attempts=10),
)
RESULT = EgressResult(
    Outcome.RESPONSE,
    None,
    ROW.endpoint,
    "hooks.example.test",
    443,
    status=204,
    peer_address="127.0.0.1",
    request_written=True,
)
BODY = b'{"type":"order.created"}'
HEADERS = {
    "Content-Type": "application/json",
    "traceparent": "00-" + "a" * 32 + "-" + "b" * 16 + "-01",
}


async def _post(row: ClaimRow, body: bytes, headers: dict[str, str]) -> EgressResult:
    return RESULT


class _Https:
    async def deliver(self, message: SignedMessage, target: ClaimRow) -> Evidence:
        return evidence_of(await _post(target, message.body, dict(message.headers)))


async def old_path(n: int) -> None:
    """Before: ``result = await self.poster(row, body, headers)``, then the breaker."""
    for _ in range(n):
        started = time.monotonic()
        result = await _post(ROW, BODY, HEADERS)
        breaker_success(result)  # type: ignore[arg-type]
        _ = time.monotonic() - started


async def new_path(n: int) -> None:
    """After: pending -> sent -> completed through the composed destination."""
    https = _Https()
    destination = TracedDestination(DestinationsByKind(installed(), {"https": https}, default=https))
    for _ in range(n):
        pending = PendingAttempt(ROW, SignedMessage(BODY, HEADERS), time.monotonic())
        completed = await send_attempt(destination, pending)
        breaker_success(completed.evidence)
        _ = completed.duration_s


def _cpu_us(fn: Any, n: int) -> float:
    t0 = time.process_time()
    asyncio.run(fn(n))
    return (time.process_time() - t0) / n * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--attempts", type=int, default=200_000)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    old: list[float] = []
    new: list[float] = []
    for _ in range(args.rounds):  # alternating, so load changes hit both alike
        old.append(_cpu_us(old_path, args.attempts))
        new.append(_cpu_us(new_path, args.attempts))
    doc = {
        "bench": "destination_port",
        "attempts_per_round": args.attempts,
        "rounds": args.rounds,
        "cpu_us_per_attempt": {
            "old_poster": round(statistics.median(old), 3),
            "new_destination_port": round(statistics.median(new), 3),
            "added": round(statistics.median(new) - statistics.median(old), 3),
        },
        "rounds_us": {"old": [round(x, 3) for x in old], "new": [round(x, 3) for x in new]},
        "load_avg_1m": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
    }
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(doc, indent=2) + "\n")
    print(json.dumps(doc["cpu_us_per_attempt"]), f"load {doc['load_avg_1m']}")


if __name__ == "__main__":
    main()
