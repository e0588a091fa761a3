"""Transformations sandbox (issue 53): CPU per transformed delivery, start-up vs run, the cost
of a hostile script to a worker, and the sandbox's memory per worker.

In one process, no I/O. A 1 KiB payload through a ten-line handler; each figure is the median
of ``--repeats`` batches of ``--runs`` runs (CPU by ``time.process_time``, all threads). Start-up
is measured both ways: building a worker (a fresh instance, QuickJS runtime and context,
runner.js, the snapshot) and restoring a worker's snapshot, which is what every run does.

    .venv/bin/python bench/bench_transform.py [--runs 500] [--repeats 5] [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from hookproof.engine.transform import Bounds, Failure, Output, Sandbox, TransformInput
from hookproof.engine.transform.decide import seed_words, webhook_document
from hookproof.engine.transform.runtime import Worker, shared_engine

HANDLER = """function handler(webhook) {
  const p = webhook.payload;
  const lines = p.items.map((i) => `${i.sku} x${i.qty}`);
  webhook.payload = {
    text: `${webhook.eventType} for ${p.customer.name}`,
    attachments: [{ title: p.id, text: lines.join("\\n"), ts: Math.floor(Date.now() / 1000) }],
  };
  webhook.url = webhook.url + "/slack";
  return webhook;
}"""

HOSTILE = {
    "endless_loop": "function handler(w) { for (;;) {} }",
    "deep_recursion": "function handler(w) { function f(n) { return f(n + 1) + 1; } return f(0); }",
    "array_growth": "function handler(w) { const a = []; for (;;) a.push({ n: a.length }); }",
    "string_doubling": "function handler(w) { let s = 'x'; for (;;) { s = s + s; s.charCodeAt(s.length - 1); } }",
    "big_allocation": "function handler(w) { const b = new ArrayBuffer(256 * 1024 * 1024); return w; }",
}


def payload_1kib() -> dict[str, object]:
    items = [{"sku": f"SKU-{n:05d}", "qty": n % 7 + 1, "price": 1999 + n} for n in range(14)]
    doc: dict[str, object] = {
        "id": "ord_0001",
        "customer": {"name": "Ada Lovelace", "id": "cus_42"},
    }
    doc["items"] = items
    doc["note"] = ""
    doc["note"] = "x" * (1024 - len(json.dumps(doc, separators=(",", ":"))))
    return doc


def rss_kib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def per_run(fn, runs: int, repeats: int) -> dict[str, float]:  # type: ignore[no-untyped-def]
    cpu, wall = [], []
    for _ in range(repeats):
        c0, w0 = time.process_time(), time.perf_counter()
        for _ in range(runs):
            fn()
        cpu.append((time.process_time() - c0) / runs * 1e6)
        wall.append((time.perf_counter() - w0) / runs * 1e6)
    return {
        "cpu_us_median": round(statistics.median(cpu), 1),
        "cpu_us_best": round(min(cpu), 1),
        "wall_us_median": round(statistics.median(wall), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--out", default=str(Path(__file__).parent / "results" / "s15_transform.json")
    )
    args = parser.parse_args()
    bounds = Bounds()
    payload = payload_1kib()
    inp = TransformInput(
        payload, "order.paid", "/hooks/orders", now_ms=1_765_000_000_000, seed=b"bench"
    )
    result: dict[str, object] = {
        "loadavg_start": list(os.getloadavg()),
        "bounds": {
            "fuel": bounds.fuel,
            "memory_bytes": bounds.memory_bytes,
            "heap_bytes": bounds.heap_bytes,
            "timeout_s": bounds.timeout_s,
            "output_bytes": bounds.output_bytes,
        },
    }
    result["payload_bytes"] = len(json.dumps(payload, separators=(",", ":")))

    rss0 = rss_kib()
    c0, w0 = time.process_time(), time.perf_counter()
    engine = shared_engine()
    result["startup_compile_module"] = {
        "cpu_ms": round((time.process_time() - c0) * 1e3, 1),
        "wall_ms": round((time.perf_counter() - w0) * 1e3, 1),
        "rss_kib": rss_kib() - rss0,
    }

    def build() -> Worker:
        return Worker(engine, memory_bytes=bounds.memory_bytes, heap_bytes=bounds.heap_bytes)

    rss1 = rss_kib()
    workers = [build() for _ in range(20)]
    result["worker_memory"] = {
        "linear_memory_bytes": workers[0].memory_bytes,
        "snapshot_bytes": workers[0].memory_bytes,
        "rss_kib_per_worker": round((rss_kib() - rss1) / len(workers), 1),
    }
    del workers
    result["startup_build_worker"] = per_run(build, max(20, args.runs // 20), args.repeats)

    worker = build()
    webhook = json.dumps(webhook_document(inp))
    seed = seed_words(inp.seed)

    def run_worker() -> None:
        nonlocal worker
        if worker.spoiled:
            worker = build()
        worker.run(
            HANDLER,
            webhook,
            seed=seed,
            now_ms=inp.now_ms,
            fuel=bounds.fuel,
            timeout_s=1.0,
            output_chars=bounds.output_bytes,
        )

    result["run_worker_only"] = per_run(run_worker, args.runs, args.repeats)

    sandbox = Sandbox(bounds, workers=1)
    first = sandbox.run_sync(HANDLER, inp)
    assert isinstance(first, Output), first
    result["fuel_per_run"] = first.fuel_used
    result["output_bytes"] = len(first.payload)
    result["run_sandbox_with_verdict_and_digests"] = per_run(
        lambda: sandbox.run_sync(HANDLER, inp), args.runs, args.repeats
    )
    built_before = sandbox.workers_built
    fresh = per_run(
        lambda: build().run(
            HANDLER,
            webhook,
            seed=seed,
            now_ms=inp.now_ms,
            fuel=bounds.fuel,
            timeout_s=1.0,
            output_chars=bounds.output_bytes,
        ),
        max(20, args.runs // 20),
        args.repeats,
    )
    result["run_on_a_fresh_worker_each_time"] = fresh
    result["worker_replacements_during_ordinary_runs"] = sandbox.workers_built - built_before

    hostile: dict[str, object] = {}
    for name, code in HOSTILE.items():
        c0, w0 = time.process_time(), time.perf_counter()
        outcome = sandbox.run_sync(code, inp)
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        assert isinstance(outcome, Failure), (name, outcome)
        c1, w1 = time.process_time(), time.perf_counter()
        after = sandbox.run_sync(HANDLER, inp)  # includes rebuilding the worker if spoiled
        assert isinstance(after, Output) and after.payload == first.payload
        hostile[name] = {
            "kind": outcome.kind.value,
            "fuel_used": outcome.fuel_used,
            "cpu_ms": round(cpu * 1e3, 1),
            "wall_ms": round(wall * 1e3, 1),
            "next_run_cpu_ms_including_worker_rebuild": round((time.process_time() - c1) * 1e3, 2),
            "next_run_wall_ms": round((time.perf_counter() - w1) * 1e3, 2),
        }
    result["hostile"] = hostile
    sandbox.close()
    result["loadavg_end"] = list(os.getloadavg())
    result["date"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
