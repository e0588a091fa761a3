"""A relay's reports are bounded (issue 46): a report whose numbers Postgres cannot hold is
refused with a close frame the client sees (nothing written); reports beyond the tenant's
budget are dropped and counted, with a bounded number of log lines. A real engine process
and a raw WebSocket client for the hostile relay; the hub on a real Postgres."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import aiohttp
import asyncpg
from structlog.testing import capture_logs

from hookproof.engine.relay.hub import LocalSession, RelayHub
from hookproof.engine.relay.limits import LOG_BURST, LOG_PER_S, REPORT_BURST, REPORTS_PER_S
from hookproof.engine.relay.repository import RelayRepository

from .harness import engine_env, start_engine, tenant
from .test_hub import FakeSocket, exchange, report


async def _relay_subscription(http: aiohttp.ClientSession, base: str) -> str:
    body = {
        "endpoint": "http://localhost:3000/webhooks",
        "topics": ["order.created"],
        "eventVersions": [1],
        "region": "local",
        "signatureAlgorithm": "ed25519",
        "owner": "dev",
        "destination": {"type": "relay"},
    }
    async with http.post(f"{base}/v1/subscriptions", json=body) as r:
        assert r.status == 201, await r.text()
        return str((await r.json())["id"])


async def test_a_report_with_numbers_out_of_range_closes_the_session_for_the_client_too(
    db_url: str, pool: asyncpg.Pool, tmp_path: Path
) -> None:
    env = engine_env(db_url, tmp_path)
    daemon = await start_engine(env, tmp_path)
    base = daemon.base_url
    try:
        token = await tenant(env, "acme")
        auth = {"Authorization": f"Bearer {token}"}
        async with aiohttp.ClientSession(headers=auth) as http:
            sid = await _relay_subscription(http, base)
            before = await pool.fetchval("SELECT count(*) FROM events")
            for attempt in (2**31, 2**63, -1):
                async with http.ws_connect(f"{base}/v1/relay/{sid}") as ws:
                    hello = await ws.receive_json(timeout=10)
                    assert hello["type"] == "attached"
                    frame = {
                        "type": "report",
                        "exchangeId": "rx_" + "0" * 24,
                        "deliveryId": "dlv_x",
                        "attempt": attempt,
                        "status": 200,
                        "error": None,
                    }
                    await ws.send_json(frame)
                    while True:  # a challenge request may come first: the close follows
                        msg = await ws.receive(timeout=10)
                        if msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                            break
                    assert ws.closed
                    assert ws.close_code == 1008, (attempt, ws.close_code)
            reported = await pool.fetchval(
                "SELECT count(*) FROM relay_exchanges WHERE reported_at IS NOT NULL"
            )
            assert reported == 0
            events = await pool.fetch(
                "SELECT type FROM events ORDER BY global_position OFFSET $1", before
            )
            # the sessions' own challenges may be recorded; no report landed anywhere
            assert all("challenge" in r["type"] or "state" in r["type"] for r in events), events
        log = daemon.log_path.read_text()
        assert "Traceback" not in log, log[-3000:]
        assert "relay_report_refused" in log
    finally:
        await asyncio.to_thread(daemon.stop)


async def test_reports_over_a_tenants_budget_are_dropped_and_counted_with_few_log_lines(
    pool: asyncpg.Pool,
) -> None:
    hub = RelayHub(RelayRepository(pool), report_timeout_s=30)
    noisy = FakeSocket("rs_noisy")
    other = FakeSocket("rs_other")
    other.session = LocalSession("rs_other", "sub_" + "b" * 24, other.send, other.close)
    try:
        await hub.attach(noisy.session.subscription_id, "ten_noisy", noisy.session)
        await hub.attach(other.session.subscription_id, "ten_other", other.session)
        junk = json.dumps(
            {
                "type": "report",
                "exchangeId": "rx_" + "f" * 24,
                "deliveryId": "dlv_nothing",
                "attempt": 1,
                "status": 200,
                "error": None,
            }
        )
        start = time.monotonic()
        with capture_logs() as logs:
            landed = [await hub.report("rs_noisy", junk) for _ in range(20_000)]
        elapsed = time.monotonic() - start
        assert not any(landed)
        counts = hub.counts("rs_noisy")
        assert counts["taken"] + counts["dropped"] == 20_000
        # only the budget reached the database (each taken frame is one UPDATE at most)
        assert counts["taken"] <= REPORT_BURST + REPORTS_PER_S * elapsed + 1, (counts, elapsed)
        assert counts["dropped"] >= 20_000 - (REPORT_BURST + REPORTS_PER_S * elapsed + 1)
        warnings = [e for e in logs if e["log_level"] == "warning"]
        assert 1 <= len(warnings) <= LOG_BURST + LOG_PER_S * elapsed + 1, (len(warnings), elapsed)
        assert {e["event"] for e in warnings} <= {"relay_report_unmatched", "relay_reports_dropped"}
        # another tenant's relay is not held by the first one's budget: its report lands
        task = asyncio.ensure_future(
            exchange(hub, 1, subscription_id=other.session.subscription_id)
        )
        frame = await asyncio.wait_for(other.frames.get(), 30)
        assert await hub.report("rs_other", report(frame, status=204))
        assert (await task).status == 204
    finally:
        await hub.close()
