#!/usr/bin/env python3
"""Event store benchmark: hookproof's EventStore against the ``eventsourcing`` library.

Run with ``make bench`` (or ``.venv/bin/python bench/bench_event_store.py --help``).

What it measures, in one run, on one Postgres server:

* append throughput (events/s) for batches of 1, 10, 100 and 1,000 events per transaction,
  with 1 and 16 concurrent writers, durable commits (the server's default
  ``synchronous_commit``), ~200-byte event payloads:

  - ``hookproof``: ``EventStore.append`` (asyncio; each writer task holds its own pool
    connection). A batch of N events is spread over ``ceil(N / events_per_stream)`` streams
    (default 10 events per stream, so 1 -> 1 stream, 100 -> 10 streams, 1000 -> 100 streams).
    Every writer cycles through its own ring of streams: the first append to a stream uses
    ``NO_STREAM``, later ones the exact expected version, so the head-read and version-check
    path is exercised as in real use and no append ever conflicts;
  - ``eventsourcing`` (PyPI library, sync psycopg 3, one thread per writer):
    ``PostgresApplicationRecorder.insert_events`` (what an ``eventsourcing`` Application uses:
    globally ordered notification ids, table lock per insert) and, for reference,
    ``PostgresAggregateRecorder.insert_events`` (no global order, no table lock). Same
    streams/versions layout, same payload bytes, each in its own database on the same server;

* tail-read throughput (events/s) of ``EventStore.read_after`` paging through at least
  500,000 events (plus the raw SQL without ``RecordedEvent`` construction, and the
  ``eventsourcing`` ``select_notifications`` paging as a reference).

Each cell runs for a fixed duration after a short warm-up; only appends that complete inside
the measured window count. Results are printed as a table and written as JSON (default
``bench/results/event_store.json``) with machine information and the goals' pass/fail.

The server is an embedded Postgres (``pgserver``) in a temporary folder that is deleted at
the end, unless ``HOOKPROOF_BENCH_DATABASE_URL`` names an admin URL of an existing server; the
benchmark then creates (and drops) its own databases there.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import Any

import asyncpg

from hookproof.engine.db.database import connect_pool
from hookproof.engine.db.migrate import migrate
from hookproof.events import Event, encode_event
from hookproof.events.sqlfiles import query
from hookproof.events.store import NO_STREAM, EventStore, Position, StreamAppend

ROOT = Path(__file__).resolve().parent
DEFAULT_OUTPUT = ROOT / "results" / "event_store.json"

PAYLOAD_BYTES = 200
GOAL_BATCH100_EVENTS_PER_S = 50_000
GOAL_RATIO_16x1 = 2.5
GOAL_TAIL_EVENTS_PER_S = 200_000


class BenchHappened(Event, frozen=True, tag="bench.happened"):
    """The benchmark's event: a counter and padding to reach ~200 bytes of canonical JSON."""

    n: int
    note: str


def make_events(count: int) -> list[BenchHappened]:
    """``count`` events whose canonical JSON is exactly ``PAYLOAD_BYTES`` long."""
    out = []
    for i in range(count):
        bare = len(encode_event(BenchHappened(n=i, note="")))
        out.append(BenchHappened(n=i, note="x" * max(0, PAYLOAD_BYTES - bare)))
    assert all(len(encode_event(e)) == PAYLOAD_BYTES for e in out)
    return out


# -- results --------------------------------------------------------------------------------


@dataclass
class Cell:
    system: str
    batch: int
    writers: int
    seconds: float
    events: int
    transactions: int
    latencies_ms: list[float] = field(default_factory=list, repr=False)
    error: str | None = None

    @property
    def events_per_s(self) -> float:
        return self.events / self.seconds if self.seconds > 0 else 0.0

    def as_json(self) -> dict[str, Any]:
        lat = sorted(self.latencies_ms)
        out: dict[str, Any] = {
            "system": self.system,
            "batch": self.batch,
            "writers": self.writers,
            "seconds": round(self.seconds, 3),
            "events": self.events,
            "transactions": self.transactions,
            "events_per_s": round(self.events_per_s, 1),
            "transactions_per_s": round(self.transactions / self.seconds, 1)
            if self.seconds > 0
            else 0.0,
        }
        if lat:
            out["latency_ms"] = {
                "p50": round(_pct(lat, 50), 3),
                "p99": round(_pct(lat, 99), 3),
                "max": round(lat[-1], 3),
            }
        if self.error:
            out["error"] = self.error
        return out


def _pct(sorted_values: list[float], p: float) -> float:
    if not sorted_values:
        return 0.0
    k = min(len(sorted_values) - 1, max(0, math.ceil(p / 100 * len(sorted_values)) - 1))
    return sorted_values[k]


MIN_TRANSACTIONS = 20  # per cell; slow cells (1,000-event batches) run longer to reach it
MAX_WINDOW_FACTOR = 3.0  # ... but never more than 3x the requested seconds


def _window_done(t0: float, seconds: float, transactions: int) -> bool:
    elapsed = time.perf_counter() - t0
    if elapsed >= seconds * MAX_WINDOW_FACTOR:
        return True
    return elapsed >= seconds and transactions >= MIN_TRANSACTIONS


def segments_of(batch: int, per_stream: int) -> list[int]:
    """How a batch of ``batch`` events splits over streams: sizes of consecutive segments."""
    full, rest = divmod(batch, per_stream)
    return [per_stream] * full + ([rest] if rest else [])


# -- server and databases ---------------------------------------------------------------------


def with_database(url: str, dbname: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(parts._replace(path="/" + dbname))


def libpq_params(url: str) -> dict[str, Any]:
    """host/port/user/password of a libpq URL (a Unix socket folder may be in ``?host=``)."""
    parts = urllib.parse.urlsplit(url)
    qs = urllib.parse.parse_qs(parts.query)
    host = (qs.get("host") or [""])[0] or parts.hostname or "localhost"
    port = parts.port or int((qs.get("port") or ["5432"])[0])
    return {
        "host": host,
        "port": port,
        "user": urllib.parse.unquote(parts.username or "postgres"),
        "password": urllib.parse.unquote(parts.password or ""),
    }


@contextlib.contextmanager
def postgres_server(pgdata_parent: str | None) -> Iterator[tuple[str, dict[str, Any]]]:
    """An admin URL: ``HOOKPROOF_BENCH_DATABASE_URL`` or a fresh embedded server."""
    external = os.environ.get("HOOKPROOF_BENCH_DATABASE_URL")
    if external:
        yield external, {"embedded": False}
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs: no XDG_RUNTIME_DIR on servers
        import pgserver

    folder = tempfile.mkdtemp(prefix="hp-bench-pg-", dir=pgdata_parent)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        server = pgserver.get_server(folder, cleanup_mode="delete")
    try:
        yield server.get_uri(), {"embedded": True, "data_dir": folder, "fs": _fs_type(folder)}
    finally:
        with contextlib.suppress(Exception):
            server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


def _fs_type(path: str) -> str | None:
    try:
        out = subprocess.run(
            ["df", "-T", path], capture_output=True, text=True, check=True, timeout=5
        ).stdout.splitlines()
        return out[-1].split()[1]
    except Exception:
        return None


async def create_databases(admin_url: str, names: list[str]) -> None:
    admin = await asyncpg.connect(admin_url)
    try:
        for name in names:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()


async def drop_databases(admin_url: str, names: list[str]) -> None:
    admin = await asyncpg.connect(admin_url)
    try:
        for name in names:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


async def server_info(url: str) -> dict[str, Any]:
    conn = await asyncpg.connect(url)
    try:
        info: dict[str, Any] = {
            "version": await conn.fetchval("SELECT version()"),
            "server_version": await conn.fetchval("SHOW server_version"),
        }
        for name in (
            "synchronous_commit",
            "fsync",
            "wal_sync_method",
            "full_page_writes",
            "shared_buffers",
            "max_connections",
            "commit_delay",
            "wal_level",
        ):
            info[name] = await conn.fetchval(f"SHOW {name}")
        return info
    finally:
        await conn.close()


# -- hookproof ----------------------------------------------------------------------------------


class OursBench:
    """Appends through ``EventStore.append``; every writer task owns one pool connection."""

    system = "hookproof"

    def __init__(self, pool: asyncpg.Pool, events: list[BenchHappened], per_stream: int) -> None:
        self.store = EventStore(pool)
        self.pool = pool
        self.events = events
        self.per_stream = per_stream
        self._cell = 0

    async def run_cell(self, batch: int, writers: int, warmup: float, seconds: float) -> Cell:
        self._cell += 1
        segs = segments_of(batch, self.per_stream)
        ring_size = max(200, 2 * len(segs))
        counts = [0] * writers
        txs = [0] * writers
        measuring = False
        latencies: list[float] = []
        stop = asyncio.Event()
        errors: list[BaseException] = []
        cell = self._cell
        store, events = self.store, self.events

        async def writer(w: int) -> None:
            nonlocal measuring
            streams = [f"bench-c{cell}w{w}s{k}" for k in range(ring_size)]
            versions = [0] * ring_size
            i = 0
            perf = time.perf_counter
            try:
                async with self.pool.acquire() as conn:
                    while not stop.is_set():
                        appends = []
                        slots = []
                        for size in segs:
                            v = versions[i]
                            appends.append(
                                StreamAppend(
                                    streams[i], events[:size], expected=v if v else NO_STREAM
                                )
                            )
                            slots.append((i, size))
                            i = (i + 1) % ring_size
                        t = perf()
                        await store.append(appends, conn=conn)
                        if measuring:
                            latencies.append((perf() - t) * 1000)
                        for slot, size in slots:
                            versions[slot] += size
                        counts[w] += batch
                        txs[w] += 1
            except BaseException as exc:  # report, do not hang the cell
                errors.append(exc)
                stop.set()

        tasks = [asyncio.create_task(writer(w)) for w in range(writers)]
        await asyncio.sleep(warmup)
        measuring = True
        e0, x0, t0 = sum(counts), sum(txs), time.perf_counter()
        while not stop.is_set() and not _window_done(t0, seconds, sum(txs) - x0):  # noqa: ASYNC110
            await asyncio.sleep(0.05)
        e1, x1, t1 = sum(counts), sum(txs), time.perf_counter()
        measuring = False
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        return Cell(
            self.system,
            batch,
            writers,
            t1 - t0,
            e1 - e0,
            x1 - x0,
            latencies,
            error=repr(errors[0]) if errors else None,
        )

    async def count(self) -> int:
        return int(await self.pool.fetchval("SELECT count(*) FROM events"))

    async def top_up(self, target: int) -> int:
        """Append (batches of 1,000, 4 writers) until the log holds ``target`` events."""
        have = await self.count()
        while have < target:
            need = target - have
            writers = 4
            per_writer = math.ceil(need / 1000 / writers)
            self._cell += 1
            cell = self._cell

            async def fill(w: int, rounds: int, cell: int = cell) -> None:
                segs = segments_of(1000, self.per_stream)
                async with self.pool.acquire() as conn:
                    for r in range(rounds):
                        appends = [
                            StreamAppend(
                                f"bench-fill{cell}w{w}r{r}s{k}",
                                self.events[:size],
                                expected=NO_STREAM,
                            )
                            for k, size in enumerate(segs)
                        ]
                        await self.store.append(appends, conn=conn)

            await asyncio.gather(*(fill(w, per_writer) for w in range(writers)))
            have = await self.count()
        return have

    async def tail(self, limit_events: int, page: int) -> dict[str, Any]:
        """Page through the log with ``read_after`` (RecordedEvent objects) and raw SQL."""

        async def through_store() -> tuple[int, float]:
            pos, n = Position(), 0
            async with self.pool.acquire() as conn:
                t0 = time.perf_counter()
                while n < limit_events:
                    rows = await self.store.read_after(pos, limit=page, conn=conn)
                    if not rows:
                        break
                    n += len(rows)
                    pos = rows[-1].position
                return n, time.perf_counter() - t0

        async def raw_sql() -> tuple[int, float]:
            sql = query("tail")
            tx, gp, n = "0", 0, 0
            async with self.pool.acquire() as conn:
                t0 = time.perf_counter()
                while n < limit_events:
                    rows = await conn.fetch(sql, tx, gp, page)
                    if not rows:
                        break
                    n += len(rows)
                    tx, gp = rows[-1]["tx_id"], rows[-1]["global_position"]
                return n, time.perf_counter() - t0

        passes: list[dict[str, Any]] = []
        for kind, fn in (
            ("read_after", through_store),
            ("raw_sql", raw_sql),
            ("read_after", through_store),
        ):
            n, dt = await fn()
            passes.append(
                {
                    "kind": kind,
                    "events": n,
                    "seconds": round(dt, 3),
                    "events_per_s": round(n / dt, 1) if dt else 0.0,
                }
            )
        best = max(
            (p for p in passes if p["kind"] == "read_after"), key=lambda p: p["events_per_s"]
        )
        raw = next(p for p in passes if p["kind"] == "raw_sql")
        return {
            "page_size": page,
            "passes": passes,
            "events": best["events"],
            "events_per_s": best["events_per_s"],
            "raw_sql_events_per_s": raw["events_per_s"],
        }


# -- eventsourcing --------------------------------------------------------------------------------


class EsBench:
    """``eventsourcing``'s PostgreSQL recorder; one thread per writer (sync psycopg 3)."""

    def __init__(self, system: str, recorder: Any, events_payload: bytes, per_stream: int) -> None:
        from eventsourcing.persistence import StoredEvent

        self.system = system
        self.recorder = recorder
        self.payload = events_payload
        self.per_stream = per_stream
        self.StoredEvent = StoredEvent
        self.topic = "bench:BenchHappened"

    def run_cell(self, batch: int, writers: int, warmup: float, seconds: float) -> Cell:
        segs = segments_of(batch, self.per_stream)
        ring_size = max(200, 2 * len(segs))
        counts = [0] * writers
        txs = [0] * writers
        state = {"measuring": False}
        latencies: list[float] = []
        stop = threading.Event()
        errors: list[BaseException] = []
        StoredEvent, topic, payload, recorder = (
            self.StoredEvent,
            self.topic,
            self.payload,
            self.recorder,
        )

        def writer(w: int) -> None:
            streams = [uuid.uuid4() for _ in range(ring_size)]
            versions = [0] * ring_size
            i = 0
            perf = time.perf_counter
            try:
                while not stop.is_set():
                    stored: list[Any] = []
                    for size in segs:
                        sid, v = streams[i], versions[i]
                        stored.extend(
                            StoredEvent(
                                originator_id=sid,
                                originator_version=v + k + 1,
                                topic=topic,
                                state=payload,
                            )
                            for k in range(size)
                        )
                        versions[i] = v + size
                        i = (i + 1) % ring_size
                    t = perf()
                    recorder.insert_events(stored)
                    if state["measuring"]:
                        latencies.append((perf() - t) * 1000)
                    counts[w] += batch
                    txs[w] += 1
            except BaseException as exc:
                errors.append(exc)
                stop.set()

        threads = [threading.Thread(target=writer, args=(w,), daemon=True) for w in range(writers)]
        for t in threads:
            t.start()
        time.sleep(warmup)
        state["measuring"] = True
        e0, x0, t0 = sum(counts), sum(txs), time.perf_counter()
        while not stop.is_set() and not _window_done(t0, seconds, sum(txs) - x0):
            time.sleep(0.05)
        e1, x1, t1 = sum(counts), sum(txs), time.perf_counter()
        state["measuring"] = False
        stop.set()
        for t in threads:
            t.join(60)
        return Cell(
            self.system,
            batch,
            writers,
            t1 - t0,
            e1 - e0,
            x1 - x0,
            latencies,
            error=repr(errors[0]) if errors else None,
        )

    def tail(self, limit_events: int, page: int) -> dict[str, Any]:
        """Reference: ``select_notifications`` paging (application recorder only)."""
        n, start = 0, 0
        t0 = time.perf_counter()
        while n < limit_events:
            rows = self.recorder.select_notifications(
                start=start, limit=page, inclusive_of_start=False
            )
            if not rows:
                break
            n += len(rows)
            start = rows[-1].id
        dt = time.perf_counter() - t0
        return {
            "page_size": page,
            "events": n,
            "seconds": round(dt, 3),
            "events_per_s": round(n / dt, 1) if dt else 0.0,
        }


def make_es_datastore(url: str, pool_size: int) -> Any:
    from eventsourcing.postgres import PostgresDatastore

    p = libpq_params(url)
    dbname = urllib.parse.urlsplit(url).path.lstrip("/")
    return PostgresDatastore(
        dbname=dbname,
        host=p["host"],
        port=p["port"],
        user=p["user"],
        password=p["password"],
        pool_size=pool_size,
        max_overflow=0,
        # The library default (None): with a timeout, every get_connection() calls
        # pool.wait(), which is not safe from concurrent threads.
        pool_open_timeout=None,
    )


# -- the run --------------------------------------------------------------------------------------


def machine_info() -> dict[str, Any]:
    def version(name: str) -> str | None:
        try:
            return importlib_metadata.version(name)
        except importlib_metadata.PackageNotFoundError:
            return None

    commit = None
    with contextlib.suppress(Exception):
        commit = subprocess.run(
            ["git", "-C", str(ROOT.parent), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
    return {
        "cpu_count": os.cpu_count(),
        "cpu_affinity": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "cpu_model": _cpu_model(),
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "python_implementation": platform.python_implementation(),
        "packages": {
            name: version(name)
            for name in ("asyncpg", "msgspec", "eventsourcing", "psycopg", "pgserver")
        },
        "git_commit": commit,
        "loadavg_start": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }


def _cpu_model() -> str | None:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return None


def print_table(cells: list[Cell], systems: list[str]) -> None:
    by = {(c.system, c.batch, c.writers): c for c in cells}
    batches = sorted({c.batch for c in cells})
    writer_counts = sorted({c.writers for c in cells})
    head = f"{'batch':>6} {'writers':>7} " + " ".join(f"{s:>22}" for s in systems)
    if "eventsourcing-app" in systems:
        head += f" {'ours/es-app':>11}"
    if "eventsourcing-agg" in systems:
        head += f" {'ours/es-agg':>11}"
    print("\nappend throughput, events/s (transactions/s, p50 ms)")
    print(head)
    print("-" * len(head))
    for b in batches:
        for w in writer_counts:
            row = f"{b:>6} {w:>7} "
            parts = []
            for s in systems:
                c = by.get((s, b, w))
                if c is None:
                    parts.append(f"{'-':>22}")
                    continue
                p50 = _pct(sorted(c.latencies_ms), 50)
                tps = c.transactions / c.seconds if c.seconds else 0
                text = f"{c.events_per_s:,.0f} ({tps:,.0f}, {p50:.1f})"
                if c.error:
                    text = "ERR " + text
                parts.append(f"{text:>22}")
            row += " ".join(parts)
            ours = by.get(("hookproof", b, w))
            for other in ("eventsourcing-app", "eventsourcing-agg"):
                if other in systems:
                    c = by.get((other, b, w))
                    ok = ours is not None and c is not None and c.events_per_s > 0
                    ratio = ours.events_per_s / c.events_per_s if ok else 0.0  # type: ignore[union-attr]
                    row += f" {ratio:>10.2f}x"
            print(row)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    started = time.perf_counter()
    batches = [int(x) for x in args.batches.split(",")]
    writer_counts = [int(x) for x in args.writers.split(",")]
    max_writers = max(writer_counts)
    events = make_events(args.events_per_stream)
    payload = encode_event(events[0])
    info = machine_info()
    suffix = uuid.uuid4().hex[:8]
    db_ours, db_es = f"hp_bench_{suffix}_hookproof", f"hp_bench_{suffix}_eventsourcing"

    with postgres_server(args.pgdata_parent) as (admin_url, server_meta):
        await create_databases(admin_url, [db_ours, db_es])
        url_ours, url_es = with_database(admin_url, db_ours), with_database(admin_url, db_es)
        try:
            pg = await server_info(url_ours)
            pg.update(server_meta)
            print(
                f"postgres {pg['server_version']} ({'embedded' if pg['embedded'] else 'external'}"
                f"), synchronous_commit={pg['synchronous_commit']}, fsync={pg['fsync']}; "
                f"{info['cpu_count']} CPUs, python {info['python']}",
                flush=True,
            )

            conn = await asyncpg.connect(url_ours)
            try:
                await migrate(conn)
            finally:
                await conn.close()
            pool = await connect_pool(url_ours, min_size=max_writers, max_size=max_writers + 1)

            from eventsourcing.postgres import (
                PostgresAggregateRecorder,
                PostgresApplicationRecorder,
            )

            datastore = make_es_datastore(url_es, max_writers)
            # Open the pool up front and wait until it holds max_writers connections.
            datastore.pool.open(wait=True, timeout=30)
            app_recorder = PostgresApplicationRecorder(datastore, events_table_name="app_events")
            app_recorder.create_table()
            runners: list[Any] = [
                OursBench(pool, events, args.events_per_stream),
                EsBench("eventsourcing-app", app_recorder, payload, args.events_per_stream),
            ]
            if not args.no_aggregate:
                agg_recorder = PostgresAggregateRecorder(datastore, events_table_name="agg_events")
                agg_recorder.create_table()
                runners.append(
                    EsBench("eventsourcing-agg", agg_recorder, payload, args.events_per_stream)
                )
            systems = [r.system for r in runners]

            cells: list[Cell] = []
            n = 0
            for batch in batches:
                for writers in writer_counts:
                    # Rotate the order per cell so drift in machine load hits every system.
                    order = runners[n % len(runners) :] + runners[: n % len(runners)]
                    n += 1
                    for r in order:
                        if isinstance(r, OursBench):
                            cell = await r.run_cell(batch, writers, args.warmup, args.seconds)
                        else:
                            cell = await asyncio.to_thread(
                                r.run_cell, batch, writers, args.warmup, args.seconds
                            )
                        cells.append(cell)
                        print(
                            f"  {cell.system:<18} batch {batch:>4} x {writers:>2} writers: "
                            f"{cell.events_per_s:>10,.0f} events/s"
                            + (f"  ERROR {cell.error}" if cell.error else ""),
                            flush=True,
                        )

            ours_runner = runners[0]
            print(f"tail: filling the log to {args.tail_events:,} events ...", flush=True)
            total = await ours_runner.top_up(args.tail_events)
            tail = await ours_runner.tail(args.tail_events, args.page_size)
            tail["log_size"] = total
            print(
                f"  hookproof read_after: {tail['events_per_s']:,.0f} events/s over "
                f"{tail['events']:,} events (raw SQL {tail['raw_sql_events_per_s']:,.0f}/s)",
                flush=True,
            )
            es_tail = await asyncio.to_thread(runners[1].tail, args.tail_events, args.page_size)
            print(
                f"  eventsourcing select_notifications: {es_tail['events_per_s']:,.0f} "
                f"events/s over {es_tail['events']:,} events",
                flush=True,
            )

            await pool.close()
            datastore.close()
        finally:
            with contextlib.suppress(Exception):
                await drop_databases(admin_url, [db_ours, db_es])

    print_table(cells, systems)

    def eps(system: str, batch: int, writers: int) -> float | None:
        for c in cells:
            if (c.system, c.batch, c.writers) == (system, batch, writers):
                return c.events_per_s
        return None

    b100 = {w: eps("hookproof", 100, w) for w in writer_counts}
    b100_best = max((v for v in b100.values() if v is not None), default=None)
    ours_16 = eps("hookproof", 1, 16)
    es_16 = eps("eventsourcing-app", 1, 16)
    agg_16 = eps("eventsourcing-agg", 1, 16)
    ratio = ours_16 / es_16 if ours_16 and es_16 else None
    ratio_agg = ours_16 / agg_16 if ours_16 and agg_16 else None
    goals: dict[str, dict[str, Any]] = {
        "batch100_at_least_50k_events_per_s": {
            "goal": GOAL_BATCH100_EVENTS_PER_S,
            "value_by_writers": {str(k): round(v, 1) if v else v for k, v in b100.items()},
            "best": round(b100_best, 1) if b100_best else None,
            "met": bool(b100_best and b100_best >= GOAL_BATCH100_EVENTS_PER_S),
        },
        "ratio_16_writers_1_event_at_least_2_5x": {
            "goal": GOAL_RATIO_16x1,
            "ours_events_per_s": round(ours_16, 1) if ours_16 else None,
            "eventsourcing_application_recorder_events_per_s": round(es_16, 1) if es_16 else None,
            "value": round(ratio, 3) if ratio else None,
            "met": bool(ratio and ratio >= GOAL_RATIO_16x1),
            "reference_vs_aggregate_recorder": round(ratio_agg, 3) if ratio_agg else None,
        },
        "tail_at_least_200k_events_per_s": {
            "goal": GOAL_TAIL_EVENTS_PER_S,
            "value": tail["events_per_s"],
            "events": tail["events"],
            "met": tail["events_per_s"] >= GOAL_TAIL_EVENTS_PER_S
            and tail["events"] >= min(args.tail_events, 500_000),
        },
    }
    info["loadavg_end"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    result = {
        "benchmark": "event_store",
        "recorded_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "duration_s": round(time.perf_counter() - started, 1),
        "machine": info,
        "postgres": pg,
        "parameters": {
            "batches": batches,
            "writers": writer_counts,
            "seconds_per_cell": args.seconds,
            "warmup_s": args.warmup,
            "payload_bytes": PAYLOAD_BYTES,
            "events_per_stream_per_batch": args.events_per_stream,
            "tail_events": args.tail_events,
            "page_size": args.page_size,
            "hookproof_metadata": "empty ({}), event ids generated by the store",
            "notes": [
                "hookproof: asyncpg, one asyncio task per writer, each holding its own pool "
                "connection; expected versions (NO_STREAM on first append, exact afterwards)",
                "eventsourcing-app: PostgresApplicationRecorder.insert_events (global "
                "notification order, LOCK TABLE ... IN EXCLUSIVE MODE per insert); one thread "
                "per writer sharing a psycopg pool of size max(writers)",
                "eventsourcing-agg: PostgresAggregateRecorder.insert_events (no global order, "
                "no table lock); reference only",
                "durable commits: the server's default synchronous_commit (see postgres)",
                f"measured window: at least seconds_per_cell and {MIN_TRANSACTIONS} "
                f"transactions, at most {MAX_WINDOW_FACTOR:g}x seconds_per_cell",
            ],
        },
        "cells": [c.as_json() for c in cells],
        "tail": {"hookproof": tail, "eventsourcing_select_notifications": es_tail},
        "goals": goals,
    }
    print()
    for name, g in goals.items():
        shown = g.get("value", g.get("best"))
        print(f"goal {name}: {'MET' if g['met'] else 'NOT MET'} ({shown})")
    return result


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--seconds", type=float, default=4.0, help="measured seconds per cell")
    p.add_argument("--warmup", type=float, default=0.5, help="unmeasured seconds per cell")
    p.add_argument("--batches", default="1,10,100,1000", help="events per append transaction")
    p.add_argument("--writers", default="1,16", help="concurrent writer counts")
    p.add_argument(
        "--events-per-stream",
        type=int,
        default=10,
        help="events of one stream inside a batch (a batch spans batch/this streams)",
    )
    p.add_argument(
        "--tail-events",
        type=int,
        default=500_000,
        help="events to page through with read_after (the log is filled up to this)",
    )
    p.add_argument("--page-size", type=int, default=1000, help="read_after page size")
    p.add_argument(
        "--no-aggregate",
        action="store_true",
        help="skip the eventsourcing aggregate-recorder reference cells",
    )
    p.add_argument(
        "--pgdata-parent",
        default=None,
        help="folder for the embedded server's data (default: the system temp dir)",
    )
    p.add_argument("--output", default=str(DEFAULT_OUTPUT), help="JSON result file")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    result = asyncio.run(run(args))
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nwrote {out} in {result['duration_s']} s")
    errors = [c for c in result["cells"] if c.get("error")]
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
