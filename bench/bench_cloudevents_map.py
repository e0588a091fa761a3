"""What mapping a CloudEvent at the API's edge costs per event (issue 51 item 1), beside a
plain event's decoding: the JSON body decoded, the attributes mapped and checked
(``engine/ingest/cloudevents.from_attributes``, which runs ``validate_event``) and the
canonical body built, for a plain event (``EventIn``), a structured CloudEvent (typed
attributes) and a binary one (percent-decoded header strings). CPU only: no HTTP, no database.

    .venv/bin/python bench/bench_cloudevents_map.py --output bench/results/bench_cloudevents_map.json

Not a test: nothing asserts a timing.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import msgspec

from hookproof.engine.ingest.cloudevents import from_attributes
from hookproof.engine.ingest.event_checks import canonical_body, validate_event
from hookproof.schemas.api import EventIn

PAYLOAD = {"invoiceId": "inv-42", "amount": 1200, "lines": [{"sku": "a", "qty": 2}] * 5}
PLAIN = msgspec.json.encode(
    {
        "eventId": "evt-2026-0001",
        "topic": "invoice.paid",
        "version": "1.0",
        "aggregateId": "inv-42",
        "aggregateVersion": 3,
        "occurredAt": "2026-12-02T06:00:00Z",
        "payload": PAYLOAD,
    }
)
STRUCTURED = msgspec.json.encode(
    {
        "specversion": "1.0",
        "id": "evt-2026-0001",
        "source": "/billing/eu",
        "type": "invoice.paid",
        "subject": "inv-42",
        "time": "2026-12-02T06:00:00Z",
        "aggregateversion": 3,
        "region": "eu",
        "data": PAYLOAD,
    }
)
HEADERS = {
    "ce-specversion": "1.0",
    "ce-id": "evt-2026-0001",
    "ce-source": "%2Fbilling%2Feu",
    "ce-type": "invoice.paid",
    "ce-subject": "inv-42",
    "ce-time": "2026-12-02T06:00:00Z",
    "ce-aggregateversion": "3",
    "ce-region": "eu",
}
BODY = msgspec.json.encode(PAYLOAD)


def plain() -> bytes:
    e = msgspec.json.decode(PLAIN, type=EventIn)
    validate_event(e)
    return canonical_body(e)


def structured() -> bytes:
    doc = msgspec.json.decode(STRUCTURED)
    data = doc.pop("data")
    return canonical_body(from_attributes(doc, data, typed=True))


def binary() -> bytes:
    attrs = {k[3:]: unquote(v, errors="strict") for k, v in HEADERS.items()}
    return canonical_body(from_attributes(attrs, msgspec.json.decode(BODY), typed=False))


def measure(fn: Callable[[], Any], n: int, rounds: int) -> dict[str, float]:
    per_event = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        per_event.append((time.perf_counter() - start) / n * 1e6)
    return {
        "median_us": round(statistics.median(per_event), 2),
        "best_us": round(min(per_event), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    results = {name: measure(fn, args.events, args.rounds) for name, fn in (
        ("plain", plain), ("structured", structured), ("binary", binary)
    )}  # fmt: skip
    out = {
        "benchmark": "bench_cloudevents_map",
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "events_per_round": args.events,
        "rounds": args.rounds,
        "per_event": results,
        "note": "CPU per event of decode + map + checks + canonical body; the 2-core machine "
        "was shared with other work while this ran",
    }
    text = json.dumps(out, indent=2)
    print(text)
    if args.output:
        args.output.write_text(text + "\n")


if __name__ == "__main__":
    main()
