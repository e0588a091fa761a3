"""CPU per delivery of the endpoint-authentication and proxy paths (issue 35, DESIGN.md
section 14), against plain HTTPS in the same run: the pinned transport posting to a trustme
HTTPS server in a child process (so this process's CPU time is the sender's alone), keep-alive,
``--concurrency`` senders at once. Variants: plain; ``mtls`` (a client certificate in every
handshake; the server verifies it); ``oauth2`` with a cached token (the real ``TokenCache``:
one fetch from the server's token route, then hits, and ``Authorization: Bearer``); and
through Debian's tinyproxy (``CONNECT 127.0.0.1:<port>``; its own CPU is not counted, it is a
separate process). Not a test; nothing is asserted.

    flock /tmp/bench.lock python bench/bench_endpoint_auth.py [--requests 3000] [--concurrency 10]
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

import structlog
import trustme
from aiohttp import web

from hookproof.engine.egress import EgressPolicy, EgressTransport
from hookproof.engine.egress.proxy import parse_proxy
from hookproof.engine.endpoint_auth.sender import TokenCache
from hookproof.engine.endpoint_auth.spec import AuthSecret
from hookproof.events.subscription_events import EndpointAuthRef

RESULTS = Path(__file__).resolve().parent / "results" / "s9_auth_cpu.json"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(port: int, cert_pem: bytes, key_pem: bytes, client_ca_pem: bytes) -> None:
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
    web.run_app(app, host="127.0.0.1", port=port, ssl_context=ctx, print=None, access_log=None)


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


async def _run(
    transport: EgressTransport, url: str, n: int, conc: int, send: Any
) -> dict[str, float]:
    # warm: the pool's connections and the token
    await asyncio.gather(*(send(transport, url) for _ in range(conc)))
    done = 0
    failures = 0

    async def worker() -> None:
        nonlocal done, failures
        while done < n:
            done += 1
            r = await send(transport, url)
            failures += 0 if r.ok else 1

    cpu0, wall0 = time.process_time(), time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(conc)))
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    return {
        "requests": done,
        "failures": failures,
        "cpu_us_per_delivery": round(cpu / done * 1e6, 1),
        "per_second": round(done / wall, 1),
    }


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=3000)
    ap.add_argument("--concurrency", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--output", type=Path, default=RESULTS)
    args = ap.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))  # errors only
    ca, client_ca = trustme.CA(), trustme.CA()
    leaf = ca.issue_cert("127.0.0.1")
    client = client_ca.issue_cert("client.bench")
    port = _free_port()
    server = multiprocessing.Process(
        target=_serve,
        args=(
            port,
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
        await _wait_port(port)
        if tinyproxy:
            await _wait_port(proxy_port)
        base = EgressPolicy(
            allow_pairs=frozenset({("127.0.0.1", port)}),
            ca_file=str(ca_file),
            max_connections=args.concurrency,
        )
        url = f"https://127.0.0.1:{port}/hook"
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
                    await _run(transport, url, args.requests, args.concurrency, send)
                )
        for name, runs in results.items():
            cpu = sorted(r["cpu_us_per_delivery"] for r in runs)
            out[name] = {
                "runs": runs,
                "cpu_us_per_delivery_median": cpu[len(cpu) // 2],
            }
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
    args.output.write_text(json.dumps(out, indent=2) + "\n")
    for name in results:
        print(f"{name:>14}: {out[name]['cpu_us_per_delivery_median']:8.1f} us CPU/delivery")
    print("load", load_before, "->", out["load_after"])


if __name__ == "__main__":
    asyncio.run(main())
