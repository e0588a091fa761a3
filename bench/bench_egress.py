"""Egress micro-benchmarks: normalisation, classification and loopback HTTPS through the
pinned transport (pooled, and a new connection per request) versus a plain aiohttp client
(same TLS; keep-alive, and a new connection per request).

Loopback only: a local dnslib server and a trustme-certified aiohttp server on 127.0.0.1 in a
child process (so ``client_cpu_us_per_request``, this process's CPU time per request, is the
client's alone), an exact allowance for that pair. Bounded loops. Prints a table and saves
JSON to ``--output`` (default ``bench/results/bench_egress.json``). Not a test; no timing is
asserted anywhere.

    python bench/bench_egress.py [--requests 300] [--concurrency 20] [--dns-ttl 0] [--output PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import ssl
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import aiohttp
import trustme
from aiohttp import web
from dnslib import QTYPE, RR, A, DNSRecord

from hookproof.engine.egress import EgressPolicy, EgressTransport, classify
from hookproof.engine.egress.endpoint import normalise_endpoint

RESULTS = Path(__file__).resolve().parent / "results" / "bench_egress.json"


def _rate(fn: Any, items: list[Any], rounds: int = 5) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for item in items:
            fn(item)
        best = min(best, time.perf_counter() - start)
    return len(items) / best


class _Dns(asyncio.DatagramProtocol):
    ttl = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
        request = DNSRecord.parse(data)
        reply = request.reply()
        if QTYPE[request.q.qtype] == "A":
            reply.add_answer(RR(request.q.qname, QTYPE.A, rdata=A("127.0.0.1"), ttl=self.ttl))
        self.transport.sendto(reply.pack(), addr)  # type: ignore[attr-defined]


def _summary(latencies: list[float], wall: float) -> dict[str, float]:
    ordered = sorted(latencies)
    return {
        "requests": len(ordered),
        "wall_s": round(wall, 4),
        "rps": round(len(ordered) / wall, 1),
        "p50_ms": round(statistics.median(ordered) * 1000, 3),
        "p95_ms": round(ordered[int(len(ordered) * 0.95) - 1] * 1000, 3),
    }


def _serve(conn: Any, cert_pem: bytes, key_pem: bytes, dns_ttl: int) -> None:
    """The subscriber side (a TLS aiohttp server) and the DNS server, in a child process, so
    that the bench process's CPU time is the client's alone."""

    _Dns.ttl = dns_ttl

    async def serve() -> None:
        folder = Path(tempfile.mkdtemp(prefix="hp-bench-srv-"))
        (folder / "cert.pem").write_bytes(cert_pem)
        (folder / "key.pem").write_bytes(key_pem)
        server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        server_ctx.load_cert_chain(str(folder / "cert.pem"), str(folder / "key.pem"))

        async def handler(request: web.Request) -> web.Response:
            await request.read()
            return web.Response(status=204)

        app = web.Application()
        app.router.add_post("/hook", handler)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=server_ctx)
        await site.start()
        loop = asyncio.get_running_loop()
        dns_transport, _ = await loop.create_datagram_endpoint(_Dns, local_addr=("127.0.0.1", 0))
        conn.send((runner.addresses[0][1], dns_transport.get_extra_info("sockname")[1]))
        await loop.run_in_executor(None, conn.recv)  # until the parent says stop
        dns_transport.close()
        await runner.cleanup()

    asyncio.run(serve())


async def _http(args: argparse.Namespace) -> dict[str, Any]:
    ca = trustme.CA()
    cert = ca.issue_cert("bench.test", "127.0.0.1")
    folder = Path(tempfile.mkdtemp(prefix="hp-bench-"))
    ca_file = folder / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    parent, child = multiprocessing.Pipe()
    server = multiprocessing.get_context("spawn").Process(
        target=_serve,
        args=(child, cert.cert_chain_pems[0].bytes(), cert.private_key_pem.bytes(), args.dns_ttl),
        daemon=True,
    )
    server.start()
    port, dns_port = await asyncio.get_running_loop().run_in_executor(None, parent.recv)
    body = b'{"type":"bench","eventId":"e"}'
    out: dict[str, Any] = {}

    async def run(post: Any, n: int, concurrency: int) -> dict[str, float]:
        latencies: list[float] = []
        sem = asyncio.Semaphore(concurrency)

        async def one() -> None:
            async with sem:
                start = time.perf_counter()
                await post()
                latencies.append(time.perf_counter() - start)

        wall = time.perf_counter()
        cpu = time.process_time()
        await asyncio.gather(*(one() for _ in range(n)))
        used = time.process_time() - cpu
        summary = _summary(latencies, time.perf_counter() - wall)
        summary["client_cpu_us_per_request"] = round(used / n * 1e6, 1)
        return summary

    try:
        policy = EgressPolicy(
            allow_pairs=frozenset({("127.0.0.1", port)}),
            dns_servers=(("127.0.0.1", dns_port),),
            ca_file=str(ca_file),
        )
        import structlog

        structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))
        for pooled in (True, False):
            async with EgressTransport(replace(policy, pool_enabled=pooled)) as transport:

                async def egress_post() -> None:
                    result = await transport.post(f"https://bench.test:{port}/hook", body)
                    assert result.ok, result

                await run(egress_post, 20, 5)
                for c in (1, args.concurrency):
                    name = "egress_pooled" if pooled else "egress_by_name"
                    out[f"{name}_c{c}"] = await run(egress_post, args.requests, c)

        client_ctx = ssl.create_default_context(cafile=str(ca_file))
        for keep in (True, False):
            connector = aiohttp.TCPConnector(force_close=not keep, ssl=client_ctx)
            async with aiohttp.ClientSession(connector=connector) as session:

                async def plain_post() -> None:
                    async with session.post(f"https://127.0.0.1:{port}/hook", data=body) as resp:
                        assert resp.status == 204

                await run(plain_post, 20, 5)
                for c in (1, args.concurrency):
                    name = "plain_aiohttp_keepalive" if keep else "plain_aiohttp_literal"
                    out[f"{name}_c{c}"] = await run(plain_post, args.requests, c)
    finally:
        parent.send("stop")
        server.join(10)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--output", type=Path, default=RESULTS)
    parser.add_argument(
        "--dns-ttl",
        type=int,
        default=0,
        help="TTL of the bench DNS answers (0: the transport resolves every request; bench_e2e's "
        "site zone has 300, so pooled requests there use the cached answer)",
    )
    args = parser.parse_args()
    urls = [f"https://Hooks{i}.Example.com:443/a/./b/../c?x={i}" for i in range(2000)]
    addrs = [f"{(i * 7) % 256}.{i % 256}.{(i * 3) % 256}.{i % 200}" for i in range(2000)]
    addrs += [f"2606:4700::{i:x}" for i in range(2000)]
    results: dict[str, Any] = {
        "normalise_per_s": round(_rate(normalise_endpoint, urls)),
        "classify_per_s": round(_rate(classify, addrs)),
    }
    results.update(asyncio.run(_http(args)))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=2) + "\n")
    width = max(len(k) for k in results)
    for key, value in results.items():
        print(f"{key:<{width}}  {value}")
    print(f"saved {args.output}")


if __name__ == "__main__":
    main()
