"""The console's and the portal's first render and transferred bytes with 10,000 deliveries in
the view's range (issue 39, target: first render under 1 s on this machine).

A daemon process (``hookproof serve``, one worker) over a fresh database; one tenant, one
consumer with 8 endpoints (subscriptions made through the API; their challenges fail, which the
views do not mind); 10,000 ledger rows of those endpoints over the last 24 hours written straight
into ``deliveries`` (the views read the ledger, never the events), and the attempt statistics of
each endpoint's 24 hours and 7 days (counts and latency histograms) into ``proj_attempt_stats``
(as the projector would have folded them). Then Debian's Chromium through Playwright opens each
view cold (a new browser context per run: nothing cached, ``Cache-Control: no-store`` anyway)
and records, in the page:

- ``first_render_ms``: from navigation start until the view's content is in the DOM (the log's
  rows, the endpoints' rows with their charts drawn): a MutationObserver installed before the
  page's scripts notes ``performance.now()`` when ``views.js`` marks the view rendered;
- ``fcp_ms`` (first contentful paint) and ``dom_content_loaded_ms``;
- ``transfer_bytes``: the navigation's and every resource's ``transferSize`` (the static files
  and the API's JSON), split into static and API.

Views: console ``#/deliveries`` and ``#/endpoints`` with the tenant's token, portal
``#/endpoints`` and ``#/deliveries`` through a portal link. 7 runs each (medians and worst).
Not a test: nothing asserts.

    flock /tmp/bench.lock .venv/bin/python bench/bench_pages.py

Results: ``bench/results/s10_pages.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import random
import statistics
import sys
import tempfile
import time
from bisect import bisect_right
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_ingest import fresh_database, postgres_server

RESULTS = Path(__file__).resolve().parent / "results" / "s10_pages.json"
CHROMIUM = "/usr/bin/chromium"
ADMIN = "bench-admin-token-0123456789abcdef"

FILL = """
INSERT INTO deliveries (delivery_id, event_id, subscription_id, tenant_id, generation, endpoint,
    endpoint_digest, payload_digest, topic, owner, receipts, max_attempts, state, attempt,
    application, accepted_at, stream_version, created_at, updated_at)
SELECT 'dlv_' || lpad(to_hex(g), 28, '0'), 'evt-' || g, ($3::text[])[1 + g % cardinality($3::text[])],
    $1, 1, 'https://127.0.0.1:9/bench', 'd', 'sha-256=:x:', 'order.created', 'bench', false, 8,
    CASE WHEN g % 100 < 93 THEN 'ENDPOINT_ACCEPTED' WHEN g % 100 < 97 THEN 'RETRYABLE'
         ELSE 'DEAD_LETTER' END,
    1, 'PENDING', CASE WHEN g % 100 < 93 THEN now() END, 3,
    now() - make_interval(secs => ($2::int - g) * 86000.0 / $2::int), now()
FROM generate_series(1, $2::int) AS g
"""
STATS = """
INSERT INTO proj_attempt_stats (subscription_id, hour, outcome, tenant_id, attempts, latency)
SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::bigint[])
    AS u(s, h, o, t, n)
CROSS JOIN LATERAL (SELECT $6::int[] AS latency) AS l
"""

# rendered: the view the address names is drawn (views.js sets body[data-rendered]); for the
# endpoints views also every chart holder of the rows has its total
OBSERVER = """
(() => {
  const done = () => {
    const b = document.body;
    if (!b || !location.hash || b.dataset.rendered !== location.hash) return false;
    if (location.hash.startsWith('#/deliveries')) return document.querySelectorAll('#deliveries tbody tr').length > 0;
    if (location.hash.startsWith('#/endpoints')) {
      const charts = document.querySelectorAll('#subscriptions div[data-chart]');
      return charts.length > 0 && [...charts].every((c) => c.dataset.total !== undefined);
    }
    return true;
  };
  new MutationObserver((_, obs) => {
    if (window.__rendered === undefined && done()) { window.__rendered = performance.now(); obs.disconnect(); }
  }).observe(document, { subtree: true, childList: true, attributes: true });
})();
"""
MEASURE = """
() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const res = performance.getEntriesByType('resource');
  const paint = performance.getEntriesByName('first-contentful-paint')[0];
  const api = res.filter((r) => new URL(r.name).pathname.startsWith('/v1/'));
  const stat = res.filter((r) => !new URL(r.name).pathname.startsWith('/v1/'));
  const sum = (xs) => xs.reduce((a, r) => a + r.transferSize, 0);
  return {
    first_render_ms: window.__rendered,
    fcp_ms: paint ? paint.startTime : null,
    dom_content_loaded_ms: nav.domContentLoadedEventEnd,
    transfer_bytes: nav.transferSize + sum(res),
    static_bytes: nav.transferSize + sum(stat),
    api_bytes: sum(api),
    api_calls: api.length,
    rows: document.querySelectorAll('#deliveries tbody tr, #subscriptions tbody tr').length,
  };
}
"""


def latency_histogram(rng: random.Random) -> list[int]:
    from hookproof.projections.attempt_stats import LATENCY_BOUNDS_MS, LATENCY_BUCKETS

    hist = [0] * LATENCY_BUCKETS
    for _ in range(60):
        hist[bisect_right(LATENCY_BOUNDS_MS, rng.lognormvariate(4, 0.8))] += 1
    return hist


async def seed(db_url: str, tenant: str, subs: list[str], n: int) -> dict[str, Any]:
    import asyncpg

    conn = await asyncpg.connect(db_url)
    try:
        t0 = time.perf_counter()
        await conn.execute(FILL, tenant, n, subs)
        now = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
        hours = [now - timedelta(hours=i) for i in range(168)]
        rows = [(s, h) for s in subs for h in hours]
        hist = latency_histogram(random.Random(39))
        await conn.execute(
            STATS,
            [s for s, _ in rows],
            [h for _, h in rows],
            ["ENDPOINT_ACCEPTED"] * len(rows),
            [tenant] * len(rows),
            [60] * len(rows),
            hist,
        )
        await conn.execute("VACUUM ANALYZE deliveries")
        await conn.execute("VACUUM ANALYZE proj_attempt_stats")
        in_range = await conn.fetchval(
            "SELECT count(*) FROM deliveries WHERE tenant_id = $1 AND created_at > now() - interval '24 hours'",
            tenant,
        )
        return {"seed_s": round(time.perf_counter() - t0, 2), "deliveries_in_24h": in_range}
    finally:
        await conn.close()


async def open_view(browser: Any, url: str, token: str | None) -> dict[str, Any]:
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        if token is not None:
            await context.add_init_script(
                f"sessionStorage.setItem('hookproof.token', {json.dumps(token)});"
            )
        await context.add_init_script(OBSERVER)
        page = await context.new_page()
        await page.goto(url)
        await page.wait_for_function("() => window.__rendered !== undefined", timeout=30_000)
        await page.wait_for_load_state("networkidle")
        result: dict[str, Any] = await page.evaluate(MEASURE)
        return result
    finally:
        await context.close()


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"runs": len(runs)}
    for k in ("first_render_ms", "fcp_ms", "dom_content_loaded_ms"):
        xs = sorted(r[k] for r in runs if r[k] is not None)
        out[k] = {"median": round(statistics.median(xs), 1), "max": round(xs[-1], 1)}
    for k in ("transfer_bytes", "static_bytes", "api_bytes", "api_calls", "rows"):
        out[k] = runs[-1][k]
    return out


async def run(args: argparse.Namespace) -> dict[str, Any]:
    import aiohttp
    from playwright.async_api import async_playwright

    from tests.daemon import run_cli, start_daemon

    out: dict[str, Any] = {
        "benchmark": "s10_pages",
        "load_before": list(os.getloadavg()),
        "deliveries": args.deliveries,
        "views": {},
    }
    tmp = Path(tempfile.mkdtemp(prefix="hp-pages-"))
    with postgres_server(os.environ.get("HOOKPROOF_BENCH_DATABASE_URL")) as (admin, _):
        db_url = await fresh_database(admin)
        env = {
            "HOOKPROOF_DATABASE_URL": db_url,
            "HOOKPROOF_DATA_DIR": str(tmp),
            "HOOKPROOF_MASTER_KEY": base64.urlsafe_b64encode(b"k" * 32).decode().rstrip("="),
            "HOOKPROOF_EGRESS_ALLOW": "127.0.0.1:9",
            "HOOKPROOF_DNS_SERVERS": "127.0.0.1:9",
            "HOOKPROOF_CONNECT_TIMEOUT": "1",
            "HOOKPROOF_ADMIN_TOKEN": ADMIN,
        }
        daemon = await asyncio.to_thread(start_daemon, env, tmp)
        try:
            made = await asyncio.to_thread(run_cli, ["tenant", "create", "bench", "--json"], env)
            doc = json.loads(made.stdout.strip().splitlines()[-1])
            tenant, token = doc["tenantId"], doc["token"]
            auth = {"Authorization": f"Bearer {token}"}
            async with aiohttp.ClientSession(headers=auth) as http:
                base = daemon.base_url
                async with http.post(base + "/v1/consumers", json={"id": "cust", "name": "Cust"}):
                    pass
                subs = []
                for i in range(args.endpoints):
                    body = {
                        "endpoint": f"https://127.0.0.1:9/bench-{i}",
                        "topics": ["order.created"],
                        "eventVersions": [1],
                        "region": "eu",
                        "signatureAlgorithm": "ed25519",
                        "owner": "bench",
                        "consumerId": "cust",
                    }
                    async with http.post(base + "/v1/subscriptions", json=body) as r:
                        subs.append((await r.json())["id"])
                async with http.post(base + "/v1/consumers/cust/portal-sessions") as r:
                    link = (await r.json())["url"]
            out["seed"] = await seed(db_url, tenant, subs, args.deliveries)
            views = {
                "console_deliveries": (base + "/console#/deliveries", token),
                "console_endpoints": (base + "/console#/endpoints", token),
                "portal_endpoints": (link, None),
                "portal_deliveries": (link, None),
            }
            async with async_playwright() as pw:
                browser = await pw.chromium.launch(
                    executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
                )
                try:
                    for name, (url, tok) in views.items():
                        try:
                            if name == "portal_deliveries":
                                runs = [await portal_log(browser, link) for _ in range(args.runs)]
                            else:
                                runs = [
                                    await open_view(browser, url, tok) for _ in range(args.runs)
                                ]
                            out["views"][name] = summary(runs)
                        except Exception as exc:  # a view that fails is reported, not hidden
                            out["views"][name] = {"error": f"{type(exc).__name__}: {exc}"[:500]}
                        print(name, json.dumps(out["views"][name]), flush=True)
                finally:
                    await browser.close()
        finally:
            await asyncio.to_thread(daemon.stop)
    out["load_after"] = list(os.getloadavg())
    out["recorded_at"] = datetime.now(UTC).isoformat(timespec="seconds")
    out["args"] = vars(args)
    return out


async def portal_log(browser: Any, link: str) -> dict[str, Any]:
    """The portal's delivery log as a customer reaches it: the link opens the endpoints, then
    the log is the first view drawn in a new tab of the same session (its token is in this
    tab's session storage, so the log is opened through the same context, cold otherwise)."""
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        page = await context.new_page()
        await page.goto(link)
        await page.wait_for_function("() => document.body.dataset.rendered === location.hash")
        token = await page.evaluate("() => sessionStorage.getItem('hookproof.token')")
        await page.close()
        await context.add_init_script(
            "sessionStorage.setItem('hookproof.portal-link', '1');"
            f"sessionStorage.setItem('hookproof.token', {json.dumps(token)});"
        )
        await context.add_init_script(OBSERVER)
        page = await context.new_page()
        await page.goto(link.split("#")[0] + "#/deliveries")
        await page.wait_for_function("() => window.__rendered !== undefined", timeout=30_000)
        await page.wait_for_load_state("networkidle")
        result: dict[str, Any] = await page.evaluate(MEASURE)
        return result
    finally:
        await context.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deliveries", type=int, default=10_000)
    ap.add_argument("--endpoints", type=int, default=8)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--output", default=str(RESULTS))
    args = ap.parse_args()
    result = asyncio.run(run(args))
    Path(args.output).write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
