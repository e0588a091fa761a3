"""The honest default (issue 40): ``serve`` says at start-up whether retention is on and what
the database gains per day at the log's current rate (``storage_outlook``), and ``hookproof db
status`` shows the size of every table and that growth. Real Postgres, real processes."""

from __future__ import annotations

import asyncio
import base64
import json
import time
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from hookproof.events import ANY, EventStore, StreamAppend

from .daemon import run_cli, start_daemon
from .events.sample_events import ThingHappened

EVENTS = 1_200


def _env(db_url: str, tmp_path: Path, **extra: str) -> dict[str, str]:
    return {
        "HOOKPROOF_DATABASE_URL": db_url,
        "HOOKPROOF_DATA_DIR": str(tmp_path),
        "HOOKPROOF_MASTER_KEY": base64.urlsafe_b64encode(b"s" * 32).decode().rstrip("="),
        "HOOKPROOF_DNS_SERVERS": "127.0.0.1:9",
        "HOOKPROOF_RETENTION_DAYS": "",
        **extra,
    }


async def _fill(pool: asyncpg.Pool) -> int:
    """``EVENTS`` events in 120 streams, then ANALYZE (the row estimate is then exact)."""
    store = EventStore(pool)
    for first in range(0, 120, 20):
        await store.append(
            [
                StreamAppend(f"thing-{s}", [ThingHappened(n=i) for i in range(10)], ANY)
                for s in range(first, first + 20)
            ]
        )
    await pool.execute("ANALYZE events")
    return int(await pool.fetchval("SELECT count(*) FROM events"))


def _outlook_line(log: str) -> list[dict[str, Any]]:
    out = []
    for line in log.splitlines():
        if '"storage_outlook"' in line:
            out.append(json.loads(line[line.index("{") :]))
    return out


def _wait_for_outlook(daemon: Any, timeout: float = 20.0) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if lines := _outlook_line(daemon.log()):
            return lines
        time.sleep(0.1)
    raise AssertionError(f"no storage_outlook line:\n{daemon.log()[-3000:]}")


# -- hookproof db status (a real process) -----------------------------------------------------


async def test_db_status_shows_size_per_table_and_growth(
    db_url: str, pool: asyncpg.Pool, tmp_path: Path
) -> None:
    count = await _fill(pool)
    assert count >= EVENTS
    done = await asyncio.to_thread(run_cli, ["db", "status", "--json"], _env(db_url, tmp_path))
    assert done.returncode == 0, done.stderr
    status = json.loads(done.stdout)
    assert status["events"] == count
    tables = {t["table"]: t for t in status["tables"]}
    assert {"events", "deliveries", "event_bodies"} <= set(tables)
    for t in status["tables"]:
        assert t["heapBytes"] + t["indexBytes"] + t["otherBytes"] == t["totalBytes"]
    assert tables["events"]["heapBytes"] > 0 and tables["events"]["indexBytes"] > 0
    assert status["tableBytes"] == sum(t["totalBytes"] for t in status["tables"])
    growth = status["growth"]
    assert growth["logEvents"] == count
    assert growth["windowEvents"] == count - 1  # every event after the first
    assert growth["eventsPerSecond"] > 0
    assert growth["bytesPerEvent"] == pytest.approx(status["tableBytes"] / count, abs=0.1)
    assert growth["bytesPerDay"] == pytest.approx(growth["bytesPerSecond"] * 86_400, rel=1e-6)
    assert status["retention"] == {"enabled": False, "days": None, "hotBytesAtRetention": None}

    text = await asyncio.to_thread(
        run_cli, ["db", "status"], _env(db_url, tmp_path, HOOKPROOF_RETENTION_DAYS="7")
    )
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert any(ln.startswith("size: ") and "tables" in ln for ln in lines)
    assert any(ln.split()[:1] == ["events"] and "heap" in ln and "indexes" in ln for ln in lines)
    assert any(ln.startswith("growth: ") and "events/s" in ln and "/day" in ln for ln in lines)
    assert any(ln.startswith("retention: 7 days") for ln in lines)


async def test_db_status_samples_the_growth_when_asked(db_url: str, tmp_path: Path) -> None:
    done = await asyncio.to_thread(
        run_cli, ["db", "status", "--json", "--sample", "0.5"], _env(db_url, tmp_path)
    )
    assert done.returncode == 0, done.stderr
    status = json.loads(done.stdout)
    assert status["growth"]["sampled"]["seconds"] == 0.5
    assert status["growth"]["eventsPerSecond"] is None  # an empty log: no rate, no guess
    assert "retention: off" not in done.stdout  # --json prints JSON only


# -- serve's start-up line (real processes) ---------------------------------------------------


async def test_serve_says_retention_is_off_and_what_that_costs(
    db_url: str, pool: asyncpg.Pool, tmp_path: Path
) -> None:
    count = await _fill(pool)
    daemon = await asyncio.to_thread(start_daemon, _env(db_url, tmp_path), tmp_path)
    try:
        lines = await asyncio.to_thread(_wait_for_outlook, daemon)
    finally:
        daemon.stop()
    (line,) = lines
    assert line["level"] == "warning"
    assert line["retention"] == "off" and line["retention_days"] is None
    assert line["log_events"] == count
    assert line["events_per_s"] > 0
    assert line["bytes_per_event"] > 0
    assert line["growth_bytes_per_day"] == pytest.approx(
        line["bytes_per_event"] * line["events_per_s"] * 86_400, rel=1e-3
    )
    assert "HOOKPROOF_RETENTION_DAYS" in line["advice"]


async def test_serve_with_retention_says_so_once_per_daemon(
    db_url: str, pool: asyncpg.Pool, tmp_path: Path
) -> None:
    await _fill(pool)
    env = _env(db_url, tmp_path, HOOKPROOF_RETENTION_DAYS="7", HOOKPROOF_WORKERS="2")
    daemon = await asyncio.to_thread(start_daemon, env, tmp_path)
    try:
        await asyncio.to_thread(_wait_for_outlook, daemon)
        await asyncio.sleep(1.0)  # a second worker's line would have come by now
        lines = _outlook_line(daemon.log())
    finally:
        daemon.stop()
    (line,) = lines  # the first worker only
    assert line["level"] == "info"
    assert line["retention"] == "on" and line["retention_days"] == 7.0
    assert line["hot_bytes_at_retention"] == pytest.approx(
        line["growth_bytes_per_day"] * 7, rel=1e-3
    )
