"""Hostile inputs against a real ``hookproof serve`` process (issue 32, points 2 and 3).

One worker (``HOOKPROOF_WORKERS=1``, ``HOOKPROOF_ROLES=api``), a fresh database on the given
PostgreSQL server, one tenant. A probe thread asks ``/healthz`` every 10 ms on its own
keep-alive connection throughout each case; the worker's CPU (user + system, from /proc via
psutil, its validation process included) is read before and 0.3 s after each case.

Endless compressed bodies: a chunked body of empty deflate stored blocks (``00 00 00 ff ff``,
16 KiB per chunk), raw deflate or inside a gzip member, streamed to a route until the server
answers or closes (or the client's cap: 5 s). Reported: the answer, the bytes the client
handed to its socket, the raw bytes the server read before refusing (``api_body_refused``
in the worker's log) and discarded after its answer (``api_body_unread``), the worker's CPU,
``/healthz`` max and median. Also: a body too slow (408 at ``HOOKPROOF_BODY_TIMEOUT``, 3 s
here), and an endless chunk *extension* (no body byte ever arrives: only the deadline ends it).

Hostile regex type ``[ab]*a[ab]{600}c``: the definition (refused or not, and how fast); the
same type stored straight into the log (as one defined before the bound), then 250 KB
payloads of random ``a``/``b`` (5 one after another, then 3 at once), then 1 KB payloads
(priced within the bound: validated in the validation process). Reported per case: answers,
answer time (median, max), worker CPU, ``/healthz`` max and median.

Calibration (in this process, no server): CPU time per byte of each regex of a set of
adversarial patterns against 60,000-byte strings, against its price (weight x 30 ns).

Not a test: nothing asserts a timing. Results: ``bench/results/s8_hostile_inputs.json`` (one
key per ``--label``).
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.api.hostile_client import DEFLATE_EMPTY_BLOCK, GZIP_HEADER, stream_body
from tests.daemon import Daemon, run_cli, start_daemon

HOSTILE = "[ab]*a[ab]{600}c"
SCHEMA = {
    "type": "object",
    "required": ["s"],
    "properties": {"s": {"type": "string", "pattern": HOSTILE}},
}
EMPTY_BLOCKS = DEFLATE_EMPTY_BLOCK * 3277


class Probe(threading.Thread):
    """/healthz every 10 ms on one keep-alive connection."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.latencies: list[float] = []
        self.failures = 0
        self.stop = threading.Event()

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        while not self.stop.is_set():
            t0 = time.perf_counter()
            try:
                conn.request("GET", "/healthz")
                conn.getresponse().read()
                self.latencies.append(time.perf_counter() - t0)
            except (OSError, http.client.HTTPException):
                self.failures += 1
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            time.sleep(0.01)
        conn.close()


def cpu_of(proc: psutil.Process) -> float:
    total = 0.0
    for p in [proc, *proc.children(recursive=True)]:
        try:
            t = p.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += t.user + t.system
    return total


class Case:
    """A measured window: the probe runs, the worker's CPU is read around it."""

    def __init__(self, daemon: Daemon) -> None:
        self.port = int(daemon.base_url.rsplit(":", 1)[1])
        self.proc = psutil.Process(daemon.proc.pid)

    def __enter__(self) -> Case:
        time.sleep(0.2)
        self.probe = Probe(self.port)
        self.probe.start()
        time.sleep(0.1)
        self.cpu0 = cpu_of(self.proc)
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.elapsed = time.perf_counter() - self.t0
        time.sleep(0.3)
        self.cpu = cpu_of(self.proc) - self.cpu0
        self.probe.stop.set()
        self.probe.join()

    def report(self) -> dict[str, Any]:
        lat = self.probe.latencies or [0.0]
        return {
            "windowS": round(self.elapsed, 3),
            "workerCpuS": round(self.cpu, 3),
            "healthzMaxMs": round(max(lat) * 1000, 1),
            "healthzMedianMs": round(statistics.median(lat) * 1000, 2),
            "healthzProbes": len(self.probe.latencies),
            "healthzFailures": self.probe.failures,
        }


def log_events(daemon: Daemon, name: str, since: int) -> list[dict[str, Any]]:
    out = []
    for line in daemon.log().splitlines()[since:]:
        if f'"{name}"' in line:
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
    return out


def endless_bodies(daemon: Daemon, token: str) -> dict[str, Any]:
    auth = {"Authorization": f"Bearer {token}"}
    cases = {
        "receipts_deflate": ("/v1/receipts", "deflate", {}),
        "receipts_gzip": ("/v1/receipts", "gzip", {}),
        "events_deflate": ("/v1/events", "deflate", auth),
        "batch_gzip": ("/v1/events/batch", "gzip", auth),
    }
    out: dict[str, Any] = {}
    for name, (path, encoding, headers) in cases.items():
        lines = len(daemon.log().splitlines())
        with Case(daemon) as case:
            got = stream_body(
                daemon.base_url,
                path,
                first=GZIP_HEADER if encoding == "gzip" else DEFLATE_EMPTY_BLOCK,
                piece=EMPTY_BLOCKS,
                encoding=encoding,
                headers=headers,
                cap_s=5.0,
                cap_bytes=1 << 40,
            )
        refused = log_events(daemon, "api_body_refused", lines)
        unread = log_events(daemon, "api_body_unread", lines)
        out[name] = {
            "status": got.status,
            "code": (got.problem or {}).get("code"),
            "stopped": got.stopped,
            "connectionEnded": got.ended,
            "clientSentBytes": got.sent,
            "serverRawBytesBeforeRefusal": refused[0]["raw_bytes"] if refused else None,
            "serverDiscardedAfterAnswer": unread[0]["drained_bytes"] if unread else None,
            **case.report(),
        }
        print(name, out[name], flush=True)
    return out


def slow_and_extension(daemon: Daemon) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with Case(daemon) as case:
        got = stream_body(
            daemon.base_url,
            "/v1/receipts",
            first=b"{",
            piece=b" ",
            encoding=None,
            pause_s=0.1,
            cap_s=60,
        )
    out["slow_body"] = {
        "status": got.status,
        "code": (got.problem or {}).get("code"),
        "connectionEnded": got.ended,
        "clientSentBytes": got.sent,
        **case.report(),
    }
    print("slow_body", out["slow_body"], flush=True)
    # an endless chunk extension: "1;eeee..." never ends its size line, no body byte arrives
    lines = len(daemon.log().splitlines())
    with Case(daemon) as case:
        got = stream_body(
            daemon.base_url,
            "/v1/receipts",
            first=b"1;" + b"e" * 65536,
            piece=b"e" * 65536,
            encoding=None,
            cap_s=60,
            cap_bytes=1 << 40,
            framed=False,
        )
    refused = log_events(daemon, "api_body_refused", lines)
    out["endless_chunk_extension"] = {
        "status": got.status,
        "code": (got.problem or {}).get("code"),
        "connectionEnded": got.ended,
        "clientSentBytes": got.sent,
        "serverRawBytesBeforeRefusal": refused[0]["raw_bytes"] if refused else None,
        **case.report(),
    }
    print("endless_chunk_extension", out["endless_chunk_extension"], flush=True)
    return out


def call(port: int, method: str, path: str, token: str, body: Any) -> tuple[int, Any, float]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    data = json.dumps(body).encode()
    t0 = time.perf_counter()
    conn.request(
        method,
        path,
        body=data,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    resp = conn.getresponse()
    raw = resp.read()
    elapsed = time.perf_counter() - t0
    conn.close()
    return resp.status, json.loads(raw) if raw else None, elapsed


def event(event_id: str, s: str) -> dict[str, Any]:
    return {
        "eventId": event_id,
        "topic": "legacy.hostile",
        "version": "1.0",
        "aggregateId": "a",
        "aggregateVersion": 1,
        "occurredAt": "2026-11-30T10:00:00Z",
        "payload": {"s": s},
    }


async def store_legacy_type(db_url: str, tenant_id: str) -> None:
    from hookproof.engine.event_types.decide import Define, decide
    from hookproof.engine.event_types.definition import digest_of
    from hookproof.engine.event_types.service import EventTypeService
    from hookproof.events import NO_STREAM, EventStore, Metadata, StreamAppend
    from hookproof.events.event_type_events import event_type_stream_id

    pool = await asyncpg.create_pool(db_url, min_size=1, max_size=2)
    try:
        store = EventStore(pool)
        EventTypeService(store)
        versions = {"1": (SCHEMA, {"s": "a" + "b" * 600 + "c"})}
        at = datetime.now(UTC).isoformat()
        define = Define(
            tenant_id,
            "legacy.hostile",
            "legacy",
            versions,
            False,
            digest_of("legacy", versions, False),
            at,
        )
        stream = event_type_stream_id(tenant_id, "legacy.hostile")
        await store.append(
            [StreamAppend(stream, decide(None, define), NO_STREAM, Metadata(actor="bench"))]
        )
    finally:
        await pool.close()


def answers(results: list[tuple[int, Any, float]]) -> dict[str, Any]:
    times = [r[2] for r in results]
    return {
        "answers": sorted({f"{r[0]} {(r[1] or {}).get('code', '')}".strip() for r in results}),
        "answerMsMedian": round(statistics.median(times) * 1000, 1),
        "answerMsMax": round(max(times) * 1000, 1),
    }


def hostile_regex(daemon: Daemon, db_url: str, tenant_id: str, token: str) -> dict[str, Any]:
    port = int(daemon.base_url.rsplit(":", 1)[1])
    out: dict[str, Any] = {}
    example = {"s": "a" + "b" * 600 + "c"}
    body = {"description": "x", "versions": {"1": {"schema": SCHEMA, "example": example}}}
    with Case(daemon) as case:
        res = [call(port, "PUT", f"/v1/event-types/hostile-{i}", token, body) for i in range(5)]
    out["definition"] = {**answers(res), **case.report()}
    print("definition", out["definition"], flush=True)
    asyncio.run(store_legacy_type(db_url, tenant_id))
    rng = random.Random(32)
    big = "".join(rng.choice("ab") for _ in range(250_000))
    with Case(daemon) as case:
        res = [call(port, "POST", "/v1/events", token, event(f"big-{i}", big)) for i in range(5)]
    out["stored_type_250kb_sequential"] = {**answers(res), **case.report()}
    print("stored_type_250kb_sequential", out["stored_type_250kb_sequential"], flush=True)
    with Case(daemon) as case, ThreadPoolExecutor(3) as pool:
        res = list(
            pool.map(
                lambda i: call(port, "POST", "/v1/events", token, event(f"par-{i}", big)),
                range(3),
            )
        )
    out["stored_type_250kb_three_at_once"] = {**answers(res), **case.report()}
    print("stored_type_250kb_three_at_once", out["stored_type_250kb_three_at_once"], flush=True)
    small = ["".join(rng.choice("ab") for _ in range(900)) for _ in range(10)]
    with Case(daemon) as case:
        res = [
            call(port, "POST", "/v1/events", token, event(f"small-{i}", s))
            for i, s in enumerate(small)
        ]
    out["stored_type_1kb_offloaded"] = {**answers(res), **case.report()}
    print("stored_type_1kb_offloaded", out["stored_type_1kb_offloaded"], flush=True)
    with Case(daemon) as case:
        time.sleep(1.0)
    out["idle_1s"] = case.report()
    print("idle_1s", out["idle_1s"], flush=True)
    return out


def calibration() -> list[dict[str, Any]]:
    import jsonschema_rs

    try:
        from hookproof.engine.event_types.regex_cost import regex_cost
    except ImportError:  # the code before issue 32
        return []
    rng = random.Random(1)
    n = 60_000
    hays = {
        "ab": "".join(rng.choice("ab") for _ in range(n)),
        "word": "".join(rng.choice("abcdefghijklmnopqrstuvwxyz_0123456789") for _ in range(n)),
        "unicode": "".join(rng.choice("aébçдж字ab") for _ in range(n // 2)),
    }
    patterns = [
        "[ab]*a[ab]{500}c",
        "a[ab]{100}c",
        "a[ab]{30}c",
        "a[ab]{12}c",
        r"a\w{50}c",
        r"a\w{200}c",
        r"(?i)a\w{100}c",
        r"(a|b|ab)*a(a|b|ab){50}c",
        "a.{60}c",
        "(?s)a.{60}c",
        r"^[^@\s]+@[^@\s]+$",
        "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
    ]
    opts = jsonschema_rs.RegexOptions(size_limit=64 * 1024, dfa_size_limit=2 * 1024 * 1024)
    out = []
    for p in patterns:
        v = jsonschema_rs.Draft202012Validator({"pattern": p}, pattern_options=opts)
        cost = regex_cost(p)
        per = {}
        for name, h in hays.items():
            t = time.process_time()
            v.is_valid(h)
            per[name] = (time.process_time() - t) / len(h.encode()) * 1e9
        worst = max(per.values())
        out.append(
            {
                "pattern": p,
                "positions": cost.positions,
                "weight": cost.weight,
                "nsPerByteWorst": round(worst, 1),
                "nsPerByte": {k: round(v, 1) for k, v in per.items()},
                "pricedNsPerByte": cost.weight * 30,
                "measuredOverPriced": round(worst / (cost.weight * 30), 3),
            }
        )
        print(out[-1], flush=True)
    return out


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
    ap.add_argument("--label", default="after")
    ap.add_argument("--out", default="bench/results/s8_hostile_inputs.json")
    args = ap.parse_args()
    db_url = asyncio.run(fresh_database(args.pg))
    folder = Path(tempfile.mkdtemp(prefix="bench-hostile-inputs-"))
    env = {
        "HOOKPROOF_DATABASE_URL": db_url,
        "HOOKPROOF_DATA_DIR": str(folder),
        "HOOKPROOF_ROLES": "api",
        "HOOKPROOF_BODY_TIMEOUT": "3",
    }
    assert run_cli(["migrate"], env).returncode == 0
    created = json.loads(
        run_cli(["tenant", "create", "bench", "--json"], env).stdout.splitlines()[-1]
    )
    daemon = start_daemon(env, folder)
    load_before = os.getloadavg()
    results: dict[str, Any] = {}
    try:
        results["endless_bodies"] = endless_bodies(daemon, created["token"])
        results["slow"] = slow_and_extension(daemon)
        results["hostile_regex"] = hostile_regex(
            daemon, db_url, created["tenantId"], created["token"]
        )
    finally:
        daemon.stop()
    results["calibration"] = calibration()
    out = Path(args.out)
    doc = json.loads(out.read_text()) if out.exists() else {}
    doc[args.label] = {
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "loadBefore": load_before,
        "loadAfter": os.getloadavg(),
        "cores": os.cpu_count(),
        "workers": 1,
        "results": results,
    }
    out.write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
