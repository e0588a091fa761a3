"""Hostile peers (issue 32, point 1): what an endless answer costs the worker that reads it.

Hostile HTTPS endpoints answer ``200`` with ``Transfer-Encoding: chunked`` and then never end
something: a trailer value (``X-T: aaaa...``), a trailer name (``XXXX...``), a chunk extension
(``2;e=aaaa...``) or the trailer section (``X-T: 1`` fields forever). Each runs in a child process (threads, blocking ``ssl`` sockets),
so this process's CPU time is the client's alone. For each stream, sent as 16 KiB writes and as
1-byte TLS records, this measures the CPU time (``time.process_time``, not wall) of one attempt
through :class:`EgressTransport`, the answer bytes it read and its outcome.

Then the latency of another origin (a keep-alive endpoint in its own child process answering
``200 ok`` at once) through the same transport: sequential requests, unloaded and with four
hostile endpoints (16 KiB writes) in flight: each attempted every 200 ms, and each attempted
again as soon as its last attempt ended (a harsher load than a dispatcher's retries and its
breaker allow); for scale, the same back-to-back load from four well-behaved endpoints on new
connections.

Loopback only; bounded loops; JSON to ``--output``
(default ``bench/results/s8_hostile_peers.json``). Not a test; nothing is asserted.

    python bench/bench_hostile_peers.py [--attempts 20] [--requests 600] [--rounds 6]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import multiprocessing
import os
import socket
import ssl
import statistics
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import structlog
import trustme

from hookproof.engine.egress import EgressPolicy, EgressTransport
from hookproof.engine.egress import connection as wire

RESULTS = Path(__file__).resolve().parent / "results" / "s8_hostile_peers.json"
BODY = b'{"type":"t","eventId":"e1"}'
CHUNKED = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
STREAMS: dict[str, tuple[bytes, bytes]] = {
    "trailer_value": (CHUNKED + b"2\r\nok\r\n0\r\nX-T: ", b"a"),
    "trailer_name": (CHUNKED + b"2\r\nok\r\n0\r\n", b"X"),
    "chunk_extension": (CHUNKED + b"2;e=", b"a"),
    "trailer_fields": (CHUNKED + b"2\r\nok\r\n0\r\n", b"X-T: 1\r\n"),
}
#: the server stops on its own after this much (the client has long gone by then)
SERVER_CAP = 256 * 1024 * 1024


def _read_request(conn: ssl.SSLSocket) -> bool:
    buf = b""
    while b"\r\n\r\n" not in buf:
        part = conn.recv(65536)
        if not part:
            return False
        buf += part
    head, _, rest = buf.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(rest) < length:
        part = conn.recv(65536)
        if not part:
            return False
        rest += part
    return True


def _hostile(conn: ssl.SSLSocket, prefix: bytes, unit: bytes, record: int) -> None:
    if not _read_request(conn):
        return
    conn.sendall(prefix)
    piece = unit * max(1, record // len(unit))
    sent = len(prefix)
    while sent < SERVER_CAP:
        conn.sendall(piece)  # one TLS record per call
        sent += len(piece)


def _good(conn: ssl.SSLSocket) -> None:
    while _read_request(conn):
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok")


def _serve(cert_pem: str, key_pem: str, kind: str, ports: Any, ready: Any) -> None:
    """A child process: one listening socket per (stream, record size), or the good origin."""
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(cert_pem, key_pem)
    listeners: list[tuple[socket.socket, Any]] = []
    if kind == "good":
        listeners.append((socket.create_server(("127.0.0.1", 0)), _good))
    else:
        for name, (prefix, unit) in STREAMS.items():
            for record in (16 * 1024, 1):
                sock = socket.create_server(("127.0.0.1", 0), backlog=64)
                handler = (lambda p, u, r: lambda c: _hostile(c, p, u, r))(prefix, unit, record)
                listeners.append((sock, handler))
                ports[f"{name}/{record}"] = sock.getsockname()[1]
    if kind == "good":
        ports["good"] = listeners[0][0].getsockname()[1]

    def accept(sock: socket.socket, handler: Any) -> None:
        while True:
            raw, _ = sock.accept()
            raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def run(raw: socket.socket = raw) -> None:
                try:
                    with ctx.wrap_socket(raw, server_side=True) as conn:
                        handler(conn)
                except (OSError, ssl.SSLError):
                    pass
                finally:
                    raw.close()

            threading.Thread(target=run, daemon=True).start()

    for sock, handler in listeners:
        threading.Thread(target=accept, args=(sock, handler), daemon=True).start()
    ready.set()
    threading.Event().wait()


async def _attempt_cpu(transport: EgressTransport, url: str) -> dict[str, Any]:
    cpu0, t0 = time.process_time(), time.perf_counter()
    result = await transport.post(url, BODY)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - t0
    return {
        "cpu_ms": cpu * 1000,
        "wall_ms": wall * 1000,
        "code": result.code,
        "status": result.status,
        # (absent before issue 32: the "before" run of --before)
        "response_bytes": getattr(result, "response_bytes", None),
        "detail": result.detail,
    }


TYPICAL = {
    "204": b"HTTP/1.1 204 No Content\r\nDate: Mon, 01 Jan 2024 00:00:00 GMT\r\nServer: nginx\r\n"
    b"Connection: keep-alive\r\n\r\n",
    "200_json": b"HTTP/1.1 200 OK\r\nDate: Mon, 01 Jan 2024 00:00:00 GMT\r\nServer: nginx\r\n"
    b"Content-Type: application/json\r\nContent-Length: 11\r\nConnection: keep-alive\r\n\r\n"
    b'{"ok":true}',
    "200_chunked": b"HTTP/1.1 200 OK\r\nDate: Mon, 01 Jan 2024 00:00:00 GMT\r\n"
    b"Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n"
    b'b\r\n{"ok":true}\r\n0\r\n\r\n',
}


class _NullTransport(asyncio.Transport):
    """Takes what the connection writes (the TLS handshake's bytes)."""

    def __init__(self) -> None:
        super().__init__()
        self.out: list[bytes] = []

    def write(self, data: Any) -> None:
        self.out.append(bytes(data))

    def is_closing(self) -> bool:
        return False

    def close(self) -> None:
        pass

    def pause_reading(self) -> None:
        pass

    def get_write_buffer_size(self) -> int:
        return 0


async def _typical_answers(ca: trustme.CA, cert: trustme.LeafCert, n: int) -> dict[str, float]:
    """CPU per answer (decrypt and parse, through the public Protocol methods) of a pooled
    connection reading ordinary answers: what the budget costs an attempt that needs none."""
    client_ctx = ssl.create_default_context()
    ca.configure_trust(client_ctx)
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    cert.configure_cert(server_ctx)
    out = {}
    for name, answer in TYPICAL.items():
        conn = wire.HttpConnection(client_ctx, "127.0.0.1")
        transport = _NullTransport()
        conn.connection_made(transport)
        s_in, s_out = ssl.MemoryBIO(), ssl.MemoryBIO()
        server = server_ctx.wrap_bio(s_in, s_out, server_side=True)
        handshake = asyncio.ensure_future(conn.handshake())
        while not handshake.done():
            await asyncio.sleep(0)
            s_in.write(b"".join(transport.out))
            transport.out.clear()
            try:
                server.do_handshake()
            except ssl.SSLWantReadError:
                pass
            if data := s_out.read():
                conn.data_received(data)
        await handshake
        records = []
        for _ in range(3 * n):
            server.write(answer)
            records.append(s_out.read())
        best = float("inf")
        for rnd in range(3):
            cpu0 = time.process_time()
            for record in records[rnd * n : (rnd + 1) * n]:
                response = conn.start(65536)
                conn.data_received(record)
                conn.end()
            best = min(best, (time.process_time() - cpu0) / n)
            assert response.complete, response.error
        out[name] = best * 1e6
    return out


def _summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50": statistics.median(ordered),
        "p90": ordered[int(0.9 * (len(ordered) - 1))],
        "max": ordered[-1],
        "mean": statistics.fmean(ordered),
    }


async def _latencies(transport: EgressTransport, url: str, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        result = await transport.post(url, BODY)
        out.append((time.perf_counter() - t0) * 1000)
        assert result.ok, result
    return out


async def _with_hostile(
    transport: EgressTransport,
    good: str,
    urls: list[str],
    pace: float,
    args: argparse.Namespace,
    via: EgressTransport | None = None,
) -> tuple[list[float], int]:
    """The good origin's latencies while each of ``urls`` is attempted again and again (every
    ``pace`` seconds, or as soon as the last attempt ended), through ``via`` (default: the
    same transport)."""
    stop = asyncio.Event()
    done = [0]

    async def keep(url: str) -> None:
        while not stop.is_set():
            started = time.perf_counter()
            await (via or transport).post(url, BODY)
            done[0] += 1
            if pace:
                await asyncio.sleep(max(0.0, pace - (time.perf_counter() - started)))

    tasks = [asyncio.create_task(keep(u)) for u in urls]
    await asyncio.sleep(0.2)
    loaded = await _latencies(transport, good, args.requests)
    stop.set()
    await asyncio.gather(*tasks)
    return loaded, done[0]


async def run(args: argparse.Namespace) -> dict[str, Any]:
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1")
    tmp = Path(tempfile.mkdtemp(prefix="hostile-"))
    ca_file, cert_file, key_file = tmp / "ca.pem", tmp / "cert.pem", tmp / "key.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    cert.cert_chain_pems[0].write_to_path(str(cert_file))
    cert.private_key_pem.write_to_path(str(key_file))
    mp = multiprocessing.get_context("spawn")
    manager = mp.Manager()
    ports: Any = manager.dict()
    children = []
    for kind in ("hostile", "good"):
        ready = manager.Event()
        child = mp.Process(
            target=_serve, args=(str(cert_file), str(key_file), kind, ports, ready), daemon=True
        )
        child.start()
        ready.wait(30)
        children.append(child)
    ports = dict(ports)
    typical = await _typical_answers(ca, cert, args.typical)
    if args.typical_only:
        for child in children:
            child.terminate()
        manager.shutdown()
        return {"load": {"loadavg": os.getloadavg()}, "typical_answer_cpu_us": typical}
    policy = EgressPolicy(
        allow_pairs=frozenset(("127.0.0.1", p) for p in ports.values()),
        ca_file=str(ca_file),
        total_timeout_s=args.timeout,
    )
    out: dict[str, Any] = {
        "bounds": {
            name: getattr(wire, name, None)
            for name in ("MAX_TRAILER_BYTES", "MAX_FRAMING_BYTES", "MAX_HEAD_BYTES", "MAX_RECORDS")
        },
        "total_timeout_s": args.timeout,
        "typical_answer_cpu_us": typical,
        "load": {"loadavg_before": os.getloadavg(), "cpus": os.cpu_count()},
        "streams": {},
    }
    try:
        async with EgressTransport(policy) as transport:
            good = f"https://127.0.0.1:{ports['good']}/"
            await _latencies(transport, good, 50)  # warm: the good origin's pooled connection
            for name in STREAMS:
                for record in (16 * 1024, 1):
                    url = f"https://127.0.0.1:{ports[f'{name}/{record}']}/"
                    if not args.before:
                        await _attempt_cpu(transport, url)  # warm
                    if args.before and record == 1:
                        continue  # as slow as the 16 KiB writes: the deadline ends both
                    runs = [await _attempt_cpu(transport, url) for _ in range(args.attempts)]
                    out["streams"][f"{name}/{'16KiB' if record > 1 else '1B'}_records"] = {
                        "cpu_ms": _summary([r["cpu_ms"] for r in runs]),
                        "wall_ms": _summary([r["wall_ms"] for r in runs]),
                        "response_bytes": sorted({r["response_bytes"] for r in runs}),
                        "codes": sorted({str(r["code"]) for r in runs}),
                        "statuses": sorted({str(r["status"]) for r in runs}),
                        "detail": runs[-1]["detail"],
                    }
            if args.before:
                return out
            # for scale: one ordinary attempt to the good origin on a new connection
            async with EgressTransport(replace(policy, pool_enabled=False)) as fresh:
                await _attempt_cpu(fresh, good)
                runs = [await _attempt_cpu(fresh, good) for _ in range(args.attempts)]
                out["ordinary_attempt_new_connection"] = {
                    "cpu_ms": _summary([r["cpu_ms"] for r in runs]),
                    "response_bytes": sorted({r["response_bytes"] for r in runs}),
                }
            hostile_urls = [
                f"https://127.0.0.1:{ports[k]}/"
                for k in (
                    "trailer_value/16384",
                    "trailer_name/16384",
                    "chunk_extension/16384",
                    "trailer_fields/16384",
                )
            ]
            # the scenarios in interleaved rounds, so that the machine's own load (shared, busy)
            # falls on each of them alike; each round's windows are --requests // --rounds long
            samples: dict[str, list[float]] = {}
            attempts: dict[str, int] = {}
            per_round = max(1, args.requests // args.rounds)
            window = argparse.Namespace(requests=per_round)
            async with EgressTransport(replace(policy, pool_enabled=False)) as fresh:
                scenarios: list[tuple[str, list[str], float, EgressTransport | None]] = [
                    ("unloaded", [], 0.0, None),
                    ("hostile_every_200ms", hostile_urls, 0.2, None),
                    ("hostile_back_to_back", hostile_urls, 0.0, None),
                    # the same back-to-back load from four well-behaved endpoints (new conns)
                    ("ordinary_back_to_back", [good] * 4, 0.0, fresh),
                ]
                for _ in range(args.rounds):
                    for label, urls, pace, via in scenarios:
                        if urls:
                            lat, done = await _with_hostile(
                                transport, good, urls, pace, window, via
                            )
                        else:
                            lat, done = await _latencies(transport, good, per_round), 0
                        samples.setdefault(label, []).extend(lat)
                        attempts[label] = attempts.get(label, 0) + done
            base = statistics.median(samples["unloaded"])
            origin: dict[str, Any] = {}
            for label, lat in samples.items():
                origin[label] = {
                    **_summary(lat),
                    "requests": len(lat),
                    "p50_over_unloaded": statistics.median(lat) / base,
                    "other_attempts_meanwhile": attempts[label],
                }
            out["other_origin_ms"] = origin
    finally:
        for child in children:
            child.terminate()
        manager.shutdown()
    out["load"]["loadavg_after"] = os.getloadavg()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--attempts", type=int, default=20)
    parser.add_argument("--requests", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--timeout", type=float, default=30.0, help="attempt deadline (s)")
    parser.add_argument("--typical", type=int, default=20000, help="ordinary answers per round")
    parser.add_argument("--typical-only", action="store_true", help="only the ordinary answers")
    parser.add_argument(
        "--before", action="store_true", help="the streams' CPU only, on code before issue 32"
    )
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args()
    out = asyncio.run(run(args))
    for name, us in out["typical_answer_cpu_us"].items():
        print(f"an ordinary answer {name:12} {us:6.2f} us of CPU (decrypt and parse)")
    print(f"{'stream':36} {'cpu p50 ms':>10} {'cpu max ms':>10} {'bytes':>18}  code")
    for name, s in out.get("streams", {}).items():
        print(
            f"{name:36} {s['cpu_ms']['p50']:10.2f} {s['cpu_ms']['max']:10.2f} "
            f"{s['response_bytes']!s:>18}  {','.join(s['codes'])}"
        )
    if args.before or args.typical_only:
        args.output.write_text(json.dumps(out, indent=2) + "\n")
        print(f"wrote {args.output}")
        return
    base = out["ordinary_attempt_new_connection"]["cpu_ms"]["p50"]
    print(f"an ordinary attempt on a new connection: cpu p50 {base:.2f} ms")
    for label, o in out["other_origin_ms"].items():
        ratio = o.get("p50_over_unloaded")
        print(
            f"other origin, {label:24} p50 {o['p50']:.3f} ms p90 {o['p90']:.3f} ms"
            + (f" (x{ratio:.2f})" if ratio else "")
        )
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
