"""The alternative engine measured for docs/transformations.md: the ``quickjs`` binding (not a
dependency; install it by hand to run this) in a worker subprocess under rlimits, a fresh
``Context`` per run with QuickJS's own memory and time limits, one length-prefixed JSON request
per run over a pipe. Prints CPU per run (parent + child, from /proc) and the child's RSS.

    .venv/bin/python bench/transform_subprocess_probe.py [--runs 500]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import struct
import subprocess
import sys
import time

CHILD = r"""
import json, struct, sys, quickjs
r, w = sys.stdin.buffer, sys.stdout.buffer
while True:
    head = r.read(4)
    if len(head) < 4:
        break
    req = json.loads(r.read(struct.unpack(">I", head)[0]))
    ctx = quickjs.Context()
    ctx.set_memory_limit(32 * 1024 * 1024)
    ctx.set_time_limit(1.0)
    ctx.set_max_stack_size(256 * 1024)
    try:
        ctx.eval("Math.random = (() => { let s = %d; return () => ((s = (s * 16807) %% 2147483647) / 2147483647); })();" % req["seed"])
        ctx.eval(req["code"])
        out = ctx.eval("JSON.stringify(handler(JSON.parse(" + json.dumps(req["input"]) + ")))")
        body = json.dumps({"ok": out}).encode()
    except Exception as e:  # the probe reports, the product's adapter would classify
        body = json.dumps({"error": str(e)[:200]}).encode()
    w.write(struct.pack(">I", len(body)) + body)
    w.flush()
"""


def limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (512 * 1024 * 1024, 512 * 1024 * 1024))
    resource.setrlimit(resource.RLIMIT_CPU, (3600, 3600))


def child_cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=500)
    args = parser.parse_args()
    sys.path.insert(0, os.path.dirname(__file__))
    from bench_transform import HANDLER, payload_1kib

    w0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        preexec_fn=limits,
    )
    assert proc.stdin is not None and proc.stdout is not None
    webhook = {
        "payload": payload_1kib(),
        "eventType": "order.paid",
        "method": "POST",
        "url": "/hooks/orders",
        "cancel": False,
    }
    request = json.dumps({"code": HANDLER, "input": json.dumps(webhook), "seed": 7}).encode()

    def one() -> bytes:
        proc.stdin.write(struct.pack(">I", len(request)) + request)
        proc.stdin.flush()
        return proc.stdout.read(struct.unpack(">I", proc.stdout.read(4))[0])

    first = one()
    start_wall = time.perf_counter() - w0
    c0, k0, w1 = time.process_time(), child_cpu(proc.pid), time.perf_counter()
    for _ in range(args.runs):
        one()
    cpu = (time.process_time() - c0 + child_cpu(proc.pid) - k0) / args.runs * 1e6
    with open(f"/proc/{proc.pid}/status") as status:
        rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    proc.stdin.close()
    proc.wait()
    print(
        json.dumps(
            {
                "first_answer": json.loads(first).get("ok", json.loads(first))[:80]
                if isinstance(json.loads(first).get("ok"), str)
                else json.loads(first),
                "spawn_and_first_run_wall_ms": round(start_wall * 1e3, 1),
                "cpu_us_per_run_parent_plus_child": round(cpu, 1),
                "wall_us_per_run": round((time.perf_counter() - w1) / args.runs * 1e6, 1),
                "child_rss_kib": rss,
                "loadavg": os.getloadavg(),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
