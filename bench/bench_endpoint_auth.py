"""CPU per delivery of the endpoint-authentication and proxy paths (issue 35, DESIGN.md
section 14), against plain HTTPS in the same run: the pinned transport posting to a trustme
HTTPS server in a child process (so this process's CPU time is the sender's alone), keep-alive,
``--concurrency`` senders at once. Variants: plain; ``mtls`` (a client certificate in every
handshake; the server verifies it); ``oauth2`` with a cached token (the real ``TokenCache``:
one fetch from the server's token route, then hits, and ``Authorization: Bearer``); and
through Debian's tinyproxy (``CONNECT 127.0.0.1:<port>``; its own CPU is not counted, it is a
separate process). Not a test; nothing is asserted.

``--sites`` (default 10, the end-to-end bench's peak: bench/HISTORY.md "Session 10: rate limits
and endpoint auth"): the server listens on that many ports, each an origin of its own (its own
pooled connections, handshakes, client identity), and the senders take the sites in turn. The
CPU of the server process and of tinyproxy in each run is reported beside the sender's (psutil,
per delivery), and each variant's request latency (median and p90, on this process's clock):
session 9 saw the proxy "cheaper" than plain HTTPS and could not say why. ``--rate`` (default
500/s): every variant is offered the same open-loop rate, so each runs at the same throughput.
A closed loop (``--rate 0``, session 9's bench) lets each variant go as fast as it can, and this
process's CPU per delivery falls with the number of requests each event-loop pass handles
(about 570 us at one sender, 220 us at ten, measured here): a variant that happens to go
faster looks cheaper. Session 9's proxy figure was that, not a cheaper path.

    flock /tmp/bench.lock python bench/bench_endpoint_auth.py [--requests 3000] [--concurrency 10]
        [--sites 10]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import shutil
import socket
import ssl
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import psutil
import structlog
import trustme
from aiohttp import web

from hookproof.engine.egress import EgressPolicy, EgressTransport
from hookproof.engine.egress.proxy import parse_proxy
from hookproof.engine.endpoint_auth.sender import TokenCache
from hookproof.engine.endpoint_auth.spec import AuthSecret
from hookproof.events.subscription_events import EndpointAuthRef

RESULTS = Path(__file__).resolve().parent / "results" / "s10_auth_cpu.json"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(ports: list[int], cert_pem: bytes, key_pem: bytes, client_ca_pem: bytes) -> None:
    folder = tempfile.mkdtemp()
    chain, key = Path(folder, "c.pem"), Path(folder, "k.pem")
    chain.write_bytes(cert_pem)
    key.write_bytes(key_pem)
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(str(chain), str(key))
    ctx.verify_mode = ssl.CERT_OPTIONAL
    ctx.load_verify_locations(cadata=client_ca_pem.decode())

    async def hook(request: web.Request) -> web.Response:
        await request.read()
        return web.Response(status=204)

    async def token(request: web.Request) -> web.Response:
        await request.read()
        return web.json_response(
            {"access_token": "t" * 40, "token_type": "Bearer", "expires_in": 3600}
        )

    app = web.Application()
    app.router.add_post("/hook", hook)
    app.router.add_post("/token", token)

    async def serve() -> None:
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        for port in ports:  # one origin per port
            await web.TCPSite(runner, "127.0.0.1", port, ssl_context=ctx).start()
        await asyncio.Event().wait()

    asyncio.run(serve())


async def _wait_port(port: int) -> None:
    for _ in range(500):
        try:
            _, w = await asyncio.open_connection("127.0.0.1", port)
            w.close()
            await w.wait_closed()
            return
        except OSError:
            await asyncio.sleep(0.02)
    raise RuntimeError("server did not start")


def _cpu(proc: psutil.Process | None) -> float:
    if proc is None:
        return 0.0
    t = proc.cpu_times()
    return float(t.user + t.system)


async def _run(
    transport: EgressTransport,
    urls: list[str],
    n: int,
    conc: int,
    send: Any,
    others: dict[str, psutil.Process | None],
    rate: float = 0.0,
) -> dict[str, float]:
    # warm: every site's pooled connections and the token
    await asyncio.gather(*(send(transport, u) for u in urls for _ in range(conc)))
    done = 0
    failures = 0
    latencies: list[float] = []

    start = time.perf_counter()

    async def worker() -> None:
        nonlocal done, failures
        while done < n:
            url = urls[done % len(urls)]
            done += 1
            if rate:  # open loop: request k leaves at start + k / rate, not earlier
                await asyncio.sleep(max(0.0, start + done / rate - time.perf_counter()))
            t0 = time.perf_counter()
            r = await send(transport, url)
            latencies.append(time.perf_counter() - t0)
            failures += 0 if r.ok else 1

    before = {name: _cpu(p) for name, p in others.items()}
    cpu0, wall0 = time.process_time(), time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(conc)))
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    latencies.sort()
    out = {
        "requests": done,
        "failures": failures,
        "cpu_us_per_delivery": round(cpu / done * 1e6, 1),
        "per_second": round(done / wall, 1),
        "latency_ms_p50": round(latencies[len(latencies) // 2] * 1e3, 2),
        "latency_ms_p90": round(latencies[int(len(latencies) * 0.9)] * 1e3, 2),
    }
    for name, p in others.items():
        if p is not None:
            out[f"{name}_cpu_us_per_delivery"] = round((_cpu(p) - before[name]) / done * 1e6, 1)
    return out


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=3000)
    ap.add_argument("--concurrency", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument(
        "--sites", type=int, default=10, help="origins (ports) the senders take in turn"
    )
    ap.add_argument(
        "--rate",
        type=float,
        default=500.0,
        help="requests/s offered to every variant alike (0: as fast as they go)",
    )
    ap.add_argument("--output", type=Path, default=RESULTS)
    args = ap.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))  # errors only
    ca, client_ca = trustme.CA(), trustme.CA()
    leaf = ca.issue_cert("127.0.0.1")
    client = client_ca.issue_cert("client.bench")
    ports = [_free_port() for _ in range(args.sites)]
    port = ports[0]
    server = multiprocessing.Process(
        target=_serve,
        args=(
            ports,
            b"".join(b.bytes() for b in leaf.cert_chain_pems),
            leaf.private_key_pem.bytes(),
            client_ca.cert_pem.bytes(),
        ),
        daemon=True,
    )
    server.start()
    folder = Path(tempfile.mkdtemp())
    ca_file = folder / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    proxy_proc = None
    proxy_port = _free_port()
    tinyproxy = shutil.which("tinyproxy")
    if tinyproxy:
        conf = folder / "tinyproxy.conf"
        conf.write_text(
            f"Port {proxy_port}\nListen 127.0.0.1\nTimeout 30\nLogLevel Warning\n"
            f'LogFile "{folder / "tinyproxy.log"}"\nMaxClients 100\nAllow 127.0.0.1\n'
        )
        proxy_proc = await asyncio.create_subprocess_exec(tinyproxy, "-d", "-c", str(conf))
    load_before = os.getloadavg()
    out: dict[str, Any] = {"load_before": load_before, "cores": os.cpu_count()}
    try:
        for p in ports:
            await _wait_port(p)
        if tinyproxy:
            await _wait_port(proxy_port)
        others: dict[str, psutil.Process | None] = {
            "server": psutil.Process(server.pid) if server.pid else None,
            "proxy": psutil.Process(proxy_proc.pid) if proxy_proc is not None else None,
        }
        base = EgressPolicy(
            allow_pairs=frozenset({("127.0.0.1", p) for p in ports}),
            ca_file=str(ca_file),
            max_connections=args.concurrency,
        )
        urls = [f"https://127.0.0.1:{p}/hook" for p in ports]
        plain = EgressTransport(base)
        proxied = (
            EgressTransport(replace(base, proxy=parse_proxy(f"http://127.0.0.1:{proxy_port}")))
            if tinyproxy
            else None
        )
        identity = plain.client_identity(
            "".join(b.bytes().decode() for b in client.cert_chain_pems),
            client.private_key_pem.bytes().decode(),
        )
        tokens = TokenCache(plain)
        secret = AuthSecret(
            "oauth2", token_url=f"https://127.0.0.1:{port}/token", client_id="c", client_secret="s"
        )
        ref = EndpointAuthRef(type="oauth2", digest="d", material_id="eam_bench")
        body = b'{"type":"bench","payload":{"n":1}}' * 8
        headers = [("Content-Type", "application/json"), ("Webhook-Id", "msg_bench")]

        async def send_plain(t: EgressTransport, u: str) -> Any:
            return await t.post(u, body, headers)

        async def send_mtls(t: EgressTransport, u: str) -> Any:
            return await t.post(u, body, headers, identity=identity)

        async def send_oauth2(t: EgressTransport, u: str) -> Any:
            token = await tokens.token("sub_bench", ref, secret)
            return await t.post(u, body, [*headers, ("Authorization", f"Bearer {token}")])

        variants: list[tuple[str, EgressTransport, Any]] = [
            ("plain", plain, send_plain),
            ("mtls", plain, send_mtls),
            ("oauth2_cached", plain, send_oauth2),
        ]
        if proxied is not None:
            variants.append(("proxy", proxied, send_plain))
        results: dict[str, list[dict[str, float]]] = {name: [] for name, _, _ in variants}
        for _ in range(args.rounds):  # interleaved, so drift in the machine's load hits all
            for name, transport, send in variants:
                results[name].append(
                    await _run(
                        transport, urls, args.requests, args.concurrency, send, others, args.rate
                    )
                )
        for name, runs in results.items():
            out[name] = {"runs": runs}
            for key in runs[0]:
                if (
                    key.endswith("_per_delivery")
                    or key.startswith("latency")
                    or key == "per_second"
                ):
                    values = sorted(r[key] for r in runs)
                    out[name][f"{key}_median"] = values[len(values) // 2]
        out["token_fetches"] = tokens.fetches
        out["proxy_server"] = "tinyproxy " + (
            "(not installed: skipped)" if not tinyproxy else "1.11 (Debian)"
        )
        await plain.close()
        if proxied is not None:
            await proxied.close()
    finally:
        server.terminate()
        if proxy_proc is not None:
            proxy_proc.terminate()
            await proxy_proc.wait()
    out["load_after"] = os.getloadavg()
    out["requests_per_run"] = args.requests
    out["concurrency"] = args.concurrency
    out["sites"] = args.sites
    out["offered_rate"] = args.rate
    args.output.write_text(json.dumps(out, indent=2) + "\n")
    for name in results:
        m = out[name]
        print(
            f"{name:>14}: {m['cpu_us_per_delivery_median']:8.1f} us CPU/delivery, "
            f"server {m.get('server_cpu_us_per_delivery_median', 0):7.1f}, "
            f"proxy {m.get('proxy_cpu_us_per_delivery_median', 0):7.1f}, "
            f"{m['per_second_median']:8.1f}/s, p50 {m['latency_ms_p50_median']} ms"
        )
    print("load", load_before, "->", out["load_after"])


if __name__ == "__main__":
    asyncio.run(main())
