"""Session 6 (issue 23): memory of idle pooled TLS connections in the egress.

``--connections`` requests at once through one :class:`EgressTransport` to one loopback TLS
server (bench_egress's child process), so that many connections end up idle in the pool; the
process's RSS (``/proc/self/status`` VmRSS) before and after, per idle connection. Uses only
the transport's public API, so the same script measures another code state when run with that
state's interpreter (``/path/to/other/.venv/bin/python bench/bench_egress_idle.py``). Not a test.

    python bench/bench_egress_idle.py [--connections 500] [--output PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import multiprocessing
import os
import tempfile
from dataclasses import replace
from pathlib import Path

import structlog
import trustme
from bench_egress import _serve

import hookproof
from hookproof.engine.egress import EgressPolicy, EgressTransport

RESULTS = Path(__file__).resolve().parent / "results" / "s6_egress_idle.json"


def _rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def _run(n: int) -> dict[str, float]:
    ca = trustme.CA()
    cert = ca.issue_cert("bench.test", "127.0.0.1")
    folder = Path(tempfile.mkdtemp(prefix="hp-bench-idle-"))
    ca_file = folder / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    parent, child = multiprocessing.Pipe()
    server = multiprocessing.get_context("spawn").Process(
        target=_serve,
        args=(child, cert.cert_chain_pems[0].bytes(), cert.private_key_pem.bytes(), 300),
        daemon=True,
    )
    server.start()
    port, dns_port = await asyncio.get_running_loop().run_in_executor(None, parent.recv)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))
    policy = EgressPolicy(
        allow_pairs=frozenset({("127.0.0.1", port)}),
        dns_servers=(("127.0.0.1", dns_port),),
        ca_file=str(ca_file),
    )
    policy = replace(policy, pool_max_idle=n + 10, max_connections=n + 10)
    body = b'{"type":"bench","eventId":"e"}'
    try:
        async with EgressTransport(policy) as transport:
            url = f"https://bench.test:{port}/hook"
            for _ in range(2):  # warm: the TLS, DNS and parser code paths, the allocator
                assert (await transport.post(url, body)).ok
            gc.collect()
            before = _rss_kib()
            for _ in range(2):  # the second round: recurring, so every connection is pooled
                results = await asyncio.gather(*(transport.post(url, body) for _ in range(n)))
                assert all(r.ok for r in results)
            await asyncio.sleep(0.2)
            gc.collect()
            after = _rss_kib()
            adapter = transport.adapter
            connector = adapter.connector
            opened = getattr(connector, "opened", None)
    finally:
        parent.send("stop")
        server.join(10)
    return {
        "connections": n,
        "opened": opened,
        "rss_before_kib": before,
        "rss_after_kib": after,
        "kib_per_connection": round((after - before) / max(opened or n, 1), 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--connections", type=int, default=500)
    ap.add_argument("--output", type=Path, default=RESULTS)
    args = ap.parse_args()
    out = asyncio.run(_run(args.connections))
    out["code"] = str(Path(hookproof.__file__).resolve().parents[1])
    out["loadavg_end"] = list(os.getloadavg())
    print(json.dumps(out, indent=2))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
