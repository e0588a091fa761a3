"""Hostile batches against a real ``hookproof serve`` process (issue 24, point 3).

One worker (``HOOKPROOF_WORKERS=1``, so the API and the dispatcher share one event loop), a
fresh database on the given PostgreSQL server, one tenant. For each body, ``--rounds`` times:
POST it to ``/v1/events/batch`` while a probe thread asks ``/healthz`` every 10 ms on its own
connection and samples the worker's RSS. Reported per body: the answer (status, code), the
time to the answer, the worker's CPU time over the request (user + system, read from /proc
via psutil 0.5 s after the answer, so aiohttp's lingering read of the rest of the body is
included; an upper bound of the event-loop time it cost), the RSS rise over the RSS before,
and the slowest ``/healthz`` answer meanwhile.

Bodies: ``gzip_bomb`` (16 KiB of gzip expanding to 16 MiB of ``{"events":[{},{},...]}``,
5.6 M entries), ``uncompressed`` (the same 16 MiB raw), ``gzip_spaces`` (64 MiB of spaces
inside a batch, gzip: nothing to count, refused by its decompressed size), ``valid_1000``
(1,000 ordinary events, the cost of a real batch, for comparison), ``idle`` (no request for
1 s: the probe alone, the noise floor of a loaded machine).

Not a test: nothing asserts a timing. Results: ``bench/results/s6_hostile_batch.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import http.client
import json
import os
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import asyncpg
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.daemon import run_cli, start_daemon

HOSTILE = b'{"events":[' + b"{}," * ((16 * 1024 * 1024 - 16) // 3) + b"{}]}"


def valid_batch() -> bytes:
    events = [
        {
            "eventId": f"v-{uuid.uuid4().hex}",
            "topic": "order.created",
            "version": "1.0",
            "aggregateId": f"a-{i}",
            "aggregateVersion": 1,
            "occurredAt": "2026-12-01T10:00:00Z",
            "payload": {"i": i, "items": [{"sku": "x" * 12, "qty": i}] * 5},
        }
        for i in range(1000)
    ]
    return json.dumps({"events": events}).encode()


def bodies() -> dict[str, tuple[bytes, str | None]]:
    spaces = b'{"events":[' + b" " * (64 * 1024 * 1024) + b"]}"
    return {
        "gzip_bomb": (gzip.compress(HOSTILE, 9), "gzip"),
        "uncompressed": (HOSTILE, None),
        "gzip_spaces": (gzip.compress(spaces, 9), "gzip"),
        "valid_1000": (b"", None),  # made fresh each round (new event ids)
        "idle": (b"", None),  # no request: the probe alone (the machine's noise floor)
    }


class Probe(threading.Thread):
    """/healthz every 10 ms on one keep-alive connection; RSS of the worker beside it."""

    def __init__(self, port: int, proc: psutil.Process) -> None:
        super().__init__(daemon=True)
        self.port, self.proc = port, proc
        self.latencies: list[float] = []
        self.stop = threading.Event()

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        while not self.stop.is_set():
            t0 = time.perf_counter()
            conn.request("GET", "/healthz")
            conn.getresponse().read()
            self.latencies.append(time.perf_counter() - t0)
            time.sleep(0.01)
        conn.close()


class RssSampler(threading.Thread):
    """The worker's RSS every 5 ms (its own thread: a stalled worker does not slow it)."""

    def __init__(self, proc: psutil.Process) -> None:
        super().__init__(daemon=True)
        self.proc = proc
        self.rss_peak = 0
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            self.rss_peak = max(self.rss_peak, self.proc.memory_info().rss)
            time.sleep(0.005)


def one(
    port: int, proc: psutil.Process, body: bytes, encoding: str | None, token: str
) -> dict[str, Any]:
    time.sleep(0.3)
    rss_before = proc.memory_info().rss
    probe, rss = Probe(port, proc), RssSampler(proc)
    probe.start()
    rss.start()
    time.sleep(0.1)
    cpu0 = proc.cpu_times()
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    if encoding:
        headers["Content-Encoding"] = encoding
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    t0 = time.perf_counter()
    if not body:
        time.sleep(1.0)
        status, answer = 0, b""
    try:
        if not body:
            raise BrokenPipeError  # idle: nothing sent
        conn.request("POST", "/v1/events/batch", body=body, headers=headers)
        resp = conn.getresponse()
        answer = resp.read()
        status = resp.status
    except (BrokenPipeError, ConnectionResetError) as exc:  # refused before all was sent
        if body:
            status, answer = -1, json.dumps({"code": type(exc).__name__}).encode()
    elapsed = time.perf_counter() - t0
    conn.close()
    time.sleep(0.5)
    cpu1 = proc.cpu_times()
    probe.stop.set()
    rss.stop.set()
    probe.join()
    rss.join()
    doc = json.loads(answer) if answer else {}
    return {
        "status": status,
        "code": doc.get("code") if isinstance(doc, dict) else None,
        "bodyBytes": len(body),
        "answerS": round(elapsed, 4),
        "workerCpuS": round((cpu1.user + cpu1.system) - (cpu0.user + cpu0.system), 4),
        "rssRiseMB": round(max(0, rss.rss_peak - rss_before) / 2**20, 1),
        "healthzMaxMs": round(max(probe.latencies) * 1000, 1),
        "healthzMedianMs": round(statistics.median(probe.latencies) * 1000, 2),
        "healthzProbes": len(probe.latencies),
    }


async def fresh_database(server_url: str) -> str:
    name = f"bench_hostile_{uuid.uuid4().hex[:8]}"
    conn = await asyncpg.connect(server_url)
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    return server_url.rsplit("/", 1)[0] + "/" + name


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432/postgres")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--label", default="after")
    ap.add_argument("--out", default="bench/results/s6_hostile_batch.json")
    ap.add_argument("--only", nargs="*", default=None)
    args = ap.parse_args()
    db_url = asyncio.run(fresh_database(args.pg))
    folder = Path(tempfile.mkdtemp(prefix="bench-hostile-"))
    env = {"HOOKPROOF_DATABASE_URL": db_url, "HOOKPROOF_DATA_DIR": str(folder)}
    assert run_cli(["migrate"], env).returncode == 0
    created = run_cli(["tenant", "create", "bench", "--json"], env)
    token = json.loads(created.stdout.strip().splitlines()[-1])["token"]
    daemon = start_daemon(env, folder)
    port = int(daemon.base_url.rsplit(":", 1)[1])
    proc = psutil.Process(daemon.proc.pid)
    results: dict[str, Any] = {}
    try:
        for name, (body, encoding) in bodies().items():
            if args.only and name not in args.only:
                continue
            runs = []
            for _ in range(args.rounds):
                data = valid_batch() if name == "valid_1000" else body
                runs.append(one(port, proc, data, encoding, token))
                print(name, runs[-1], flush=True)
            results[name] = {
                "runs": runs,
                "answerS_median": statistics.median(r["answerS"] for r in runs),
                "workerCpuS_median": statistics.median(r["workerCpuS"] for r in runs),
                "rssRiseMB_max": max(r["rssRiseMB"] for r in runs),
                "healthzMaxMs_max": max(r["healthzMaxMs"] for r in runs),
            }
    finally:
        daemon.stop()
    out = Path(args.out)
    doc = json.loads(out.read_text()) if out.exists() else {}
    doc[args.label] = {
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "load": os.getloadavg(),
        "cores": os.cpu_count(),
        "workers": 1,
        "rounds": args.rounds,
        "results": results,
    }
    out.write_text(json.dumps(doc, indent=2) + "\n")
    summary = {k: {kk: vv for kk, vv in v.items() if kk != "runs"} for k, v in results.items()}
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
