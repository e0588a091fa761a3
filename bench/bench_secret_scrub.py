"""What scrubbing an attempt's credentials from its answer costs (issue 46, item 3).

``response_of`` runs for every attempt that got an answer; with endpoint authentication it
also looks for every spelling of the credentials the attempt sent (any case, percent-encoded,
JSON-escaped, base64: ``engine/common/secret_scrub.py``). Measured in this process,
microseconds per call (median of 7 runs):

- ``none``: no credentials (the path of every subscription without ``auth``);
- ``bearer``: a 43-character bearer token, the scrubber already built (its subscription's
  attempts after the first);
- ``bearer_cold``: building that scrubber (a subscription's first attempt, or a new token);
- ``header_8k``: the longest header value the API takes (8,192 characters), warm and cold;
- ``near_misses``: a 3 KiB body of near-misses of the token (its prefix repeated, ``%``
  runs), and ``long_near_misses`` (a 1,024-byte secret, 200 KiB of its near-misses): the
  search is in 64-byte pieces with ``bytes.find``, linear (a regex over whole secrets took
  119 ms warm on the latter in this session, quadratic in the secret's length).

Writes bench/results/s15_secret_scrub.json. Not a test.

    .venv/bin/python bench/bench_secret_scrub.py
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hookproof.engine.common.secret_scrub import Scrubber, secret_texts
from hookproof.engine.destinations.https.response_excerpt import response_of

RESULTS = Path(__file__).resolve().parent / "results" / "s15_secret_scrub.json"
HEADERS = [("Content-Type", "application/json"), ("Server", "bench"), ("X-Request-Id", "r" * 32)]
BODY = json.dumps({"ok": True, "pad": "x" * 2000}).encode()
TOKEN = "Bearer " + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v"
LONG = "k" * 8192


def _per_call_us(fn: Any, n: int) -> float:
    runs = []
    for _ in range(7):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        runs.append((time.perf_counter() - start) / n * 1e6)
    return round(statistics.median(runs), 2)


def main() -> None:
    sent = {"Content-Type": "application/json"}
    near = (TOKEN[:30] * 60 + "%4" * 300).encode()[:3072]
    long_near = (("k" * 1023 + "x") * 200).encode()
    out: dict[str, Any] = {
        "none": _per_call_us(lambda: response_of(200, HEADERS, BODY, sent), 2000),
        "bearer": _per_call_us(lambda: response_of(200, HEADERS, BODY, sent, [TOKEN]), 2000),
        "bearer_cold": _per_call_us(lambda: Scrubber(secret_texts([TOKEN])), 200),
        "header_8k": _per_call_us(lambda: response_of(200, HEADERS, BODY, sent, [LONG]), 200),
        "header_8k_cold": _per_call_us(lambda: Scrubber(secret_texts([LONG])), 5),
        "near_misses": _per_call_us(lambda: response_of(200, HEADERS, near, sent, [TOKEN]), 500),
        # a tenant's own worst case: a 1,024-byte secret, an answer of its near-misses
        "long_near_misses": _per_call_us(
            lambda: response_of(200, HEADERS, long_near, sent, ["k" * 1024]), 100
        ),
    }
    doc = {
        "at": datetime.now(UTC).isoformat(),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),  # a shared machine: read with it
        "unit": "microseconds per call (median of 7 runs)",
        "body_bytes": len(BODY),
        "results": out,
    }
    RESULTS.write_text(json.dumps(doc, indent=2) + "\n")
    print(json.dumps(doc, indent=2))


if __name__ == "__main__":
    main()
