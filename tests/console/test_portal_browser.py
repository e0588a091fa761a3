"""The portal view in a real browser (Debian's Chromium through Playwright) against a daemon
process with a real HTTPS subscriber: a consumer's portal link shows its endpoints with state
and challenge result, a chart of the last 24 hours, deliveries with the evidence ladder, dead
letters with Replay, Add endpoint (egress rules apply; the hmac secret shown once), secret
rotation and the catalogue (empty where the daemon has none); a second consumer's link sees
nothing of the first's; the charts of a view come from one ``GET /v1/attempt-stats``, not one
request per row. Screenshots are saved."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp
import trustme
from aiohttp.test_utils import TestServer

from hookproof.engine.runtime.daemon import Engine

from ..delivery.conftest import Subscriber
from ..live import Client, engine_env, new_tenant, start, stop, wait_for
from .test_console_browser import (
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    _keep_error,
    _need_browser,
    async_playwright,
    expect,
)


async def _portal_link(client: Client, consumer: str) -> dict[str, Any]:
    status, out = await client.call("POST", f"/v1/consumers/{consumer}/portal-sessions")
    assert status == 201, out
    return dict(out)


async def test_portal_link_shows_only_its_consumer(
    db_url: str, tmp_path: Path, subscriber: Subscriber, ca: trustme.CA
) -> None:
    _need_browser()
    # the attempt statistics' projector passes every 0.2 s here (5 s by default)
    env = engine_env(db_url, tmp_path, subscriber.port, ca, HOOKPROOF_STATS_INTERVAL_S="0.2")
    daemon = await start(env, tmp_path)
    errors: list[str] = []
    try:
        _, token = await new_tenant(env, "acme")
        async with aiohttp.ClientSession() as http:
            acme = Client(http, daemon.base_url, token)
            for cid in ("cust-a", "cust-b"):
                status, _ = await acme.call("POST", "/v1/consumers", {"id": cid, "name": cid})
                assert status == 201
            fast = {"initialDelayS": 0.1, "maxDelayS": 0.1, "maxAttempts": 1}
            ok_a = await acme.subscribe(subscriber.url("ok-pa"), ["t"], consumerId="cust-a")
            dead_a = await acme.subscribe(
                subscriber.url("fail500-pa"), ["t"], consumerId="cust-a", retryPolicy=fast
            )
            ok_b = await acme.subscribe(subscriber.url("ok-pb"), ["t"], consumerId="cust-b")
            none = await acme.subscribe(subscriber.url("ok-pnone"), ["t"])
            out_a = await acme.publish("evt-pa", consumerId="cust-a")
            out_b = await acme.publish("evt-pb", consumerId="cust-b")
            await acme.publish("evt-pnone")
            by_sub = {d["subscriptionId"]: d["deliveryId"] for d in out_a["deliveries"]}
            ok_did, dead_did = by_sub[ok_a], by_sub[dead_a]
            b_did = out_b["deliveries"][0]["deliveryId"]

            async def settled() -> bool:
                states = (
                    await acme.delivery_state(ok_did),
                    await acme.delivery_state(dead_did),
                    await acme.delivery_state(b_did),
                )
                return states == ("ENDPOINT_ACCEPTED", "DEAD_LETTER", "ENDPOINT_ACCEPTED")

            await wait_for(settled, what="A accepted and dead-lettered, B accepted")

            async def counted() -> bool:  # the daemon's projector has folded the outcomes
                status, doc = await acme.call(
                    "GET", f"/v1/attempt-stats?subscriptionId={ok_a}&subscriptionId={dead_a}"
                )
                assert status == 200, doc
                return [
                    sum(sum(b["counts"].values()) for b in i["buckets"]) for i in doc["items"]
                ] == [1, 1]

            await wait_for(counted, what="the attempt statistics caught up")
            link_a = await _portal_link(acme, "cust-a")
            link_b = await _portal_link(acme, "cust-b")
            assert link_a["url"].startswith(daemon.base_url + "/console#portal=hpp_")

            async with async_playwright() as pw:
                browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                try:
                    page = await browser.new_page(viewport={"width": 1500, "height": 1800})
                    page.on("console", lambda m: _keep_error(errors, m))
                    page.on("pageerror", lambda e: errors.append(str(e)))
                    stats_calls: list[str] = []
                    page.on(
                        "request",
                        lambda r: stats_calls.append(r.url) if "attempt-stats" in r.url else None,
                    )
                    await page.goto(link_a["url"])
                    await expect(page.locator("#portal-consumer")).to_have_text("cust-a")
                    assert "#portal=" not in page.url  # the token left the address bar
                    row = page.locator(f'#subscriptions tbody tr[data-id="{ok_a}"]')
                    await row.wait_for()
                    assert await row.locator("td.state").inner_text() == "Active"
                    await expect(page.locator("#subscriptions tbody tr")).to_have_count(2)
                    for foreign in (ok_b, none):
                        assert await page.locator(f'tr[data-id="{foreign}"]').count() == 0
                    # the chart of the last 24 hours, drawn by the page
                    chart = page.locator(f'div[data-chart="{ok_a}"]')
                    await expect(chart).to_have_attribute("data-total", "1")
                    await expect(chart).to_have_attribute("data-endpoint-accepted", "1")
                    assert await chart.locator("svg rect[data-outcome]").count() == 1
                    dead_chart = page.locator(f'div[data-chart="{dead_a}"]')
                    await expect(dead_chart).to_have_attribute("data-total", "1")
                    await expect(dead_chart).to_have_attribute("data-dead-letter", "1")
                    assert await dead_chart.locator("svg rect[data-outcome]").count() == 1
                    # both charts of the view came from one request
                    assert len(stats_calls) == 1, stats_calls
                    assert "/v1/attempt-stats?subscriptionId=" in stats_calls[0], stats_calls
                    assert ok_a in stats_calls[0] and dead_a in stats_calls[0], stats_calls
                    # engine-wide sections are not there; the catalogue is empty here
                    for hidden in ("#gates", '#nav a[data-view="gates"]', "#rollouts"):
                        assert not await page.locator(hidden).is_visible()
                    await page.click('#nav a[data-view="event-types"]')
                    await expect(page.locator("#catalogue .note")).to_have_text(
                        "No event types are declared yet."
                    )
                    await page.go_back()

                    # a delivery's evidence ladder and attempts
                    await row.locator("td.endpoint a").click()
                    await page.click("#endpoint-deliveries")
                    await page.locator(
                        f'#deliveries tr[data-id="{ok_did}"] a[href^="#/delivery"]'
                    ).click()
                    await expect(page.locator("#delivery-state")).to_have_text("Delivered")
                    ladder = page.locator("#ladder")
                    assert (
                        await ladder.locator('[data-rung="accepted"]').get_attribute("data-value")
                        == "yes"
                    )
                    await expect(page.locator("#attempts tbody tr")).to_have_count(1)

                    # the dead letter, replayed from the portal
                    await page.click('#nav a[data-view="dead-letters"]')
                    dead_row = page.locator(f'#dead-letters tbody tr[data-id="{dead_did}"]')
                    await dead_row.wait_for()
                    await expect(page.locator("#dead-letters tbody tr")).to_have_count(1)
                    subscriber.modes["fail500-pa"] = "ok"
                    await dead_row.locator("button[data-replay]").click()
                    await expect(page.locator("#delivery-state")).to_have_text(
                        "Delivered", timeout=60_000
                    )
                    await dead_row.wait_for(state="detached")

                    # Add endpoint: egress rules apply; an hmac secret is shown once
                    await page.click('#nav a[data-view="endpoints"]')
                    await page.fill("#add-endpoint-url", "http://127.0.0.1:1/plain")
                    await page.fill("#add-endpoint-topics", "t")
                    await page.click("#add-endpoint")
                    result = page.locator("#add-endpoint-result")
                    await expect(result).to_have_class("error")
                    await expect(result).to_contain_text("400")
                    await page.fill("#add-endpoint-url", subscriber.url("ok-pnew"))
                    await page.select_option("#add-endpoint-alg", "hmac-sha256")
                    await page.click("#add-endpoint")
                    await expect(result).to_contain_text(f"added {subscriber.url('ok-pnew')}")
                    new_sid = await result.get_attribute("data-id")
                    assert new_sid and new_sid.startswith("sub_")
                    secret = page.locator("#secret-value")
                    await expect(page.locator("#secret-once")).to_be_visible()
                    first_secret = await secret.inner_text()
                    assert len(first_secret) >= 40
                    new_row = page.locator(f'#subscriptions tbody tr[data-id="{new_sid}"]')
                    await new_row.wait_for()
                    status, sub = await acme.call("GET", f"/v1/subscriptions/{new_sid}")
                    assert sub["consumerId"] == "cust-a" and "secret" not in sub
                    status, history = await acme.call("GET", f"/v1/subscriptions/{new_sid}/history")
                    assert history["items"][0]["actor"] == "portal:" + link_a["sessionId"]
                    # rotate its secret: the next one, shown once
                    await new_row.locator("button[data-rotate]").click()
                    await expect(page.locator("#secret-for")).to_have_attribute("data-id", new_sid)
                    await expect(page.locator("#secret-for")).to_have_text(
                        subscriber.url("ok-pnew")
                    )
                    await expect(secret).not_to_have_text(first_secret)

                    await asyncio.to_thread(ARTIFACTS.mkdir, parents=True, exist_ok=True)
                    shot = ARTIFACTS / "console-portal.png"
                    await page.screenshot(path=str(shot), full_page=True)
                    assert len(await asyncio.to_thread(shot.read_bytes)) > 10_000

                    # the second consumer's link, in its own tab: nothing of the first's
                    other = await browser.new_page(viewport={"width": 1500, "height": 1200})
                    other.on("console", lambda m: _keep_error(errors, m))
                    other.on("pageerror", lambda e: errors.append(str(e)))
                    await other.goto(link_b["url"])
                    await expect(other.locator("#portal-consumer")).to_have_text("cust-b")
                    await other.locator(f'#subscriptions tbody tr[data-id="{ok_b}"]').wait_for()
                    await expect(other.locator("#subscriptions tbody tr")).to_have_count(1)
                    await other.click('#nav a[data-view="dead-letters"]')
                    await expect(other.locator("#dead-letters .note")).to_have_text(
                        "No failed deliveries."
                    )
                    content = await other.content()
                    for foreign in (ok_a, dead_a, str(new_sid), ok_did, dead_did, none):
                        assert foreign not in content
                    await other.screenshot(
                        path=str(ARTIFACTS / "console-portal-other.png"), full_page=True
                    )

                    # the session ended: the page says so instead of showing anything
                    status, _ = await acme.call(
                        "DELETE", f"/v1/portal-sessions/{link_b['sessionId']}"
                    )
                    assert status == 204
                    await other.reload()
                    await expect(other.locator("#link-ended")).to_be_visible()
                    assert not await other.locator("#main").is_visible()
                    assert not await other.locator("#token").is_visible()
                finally:
                    await browser.close()
    finally:
        await stop(daemon)
    assert errors == [], errors


async def test_portal_catalogue_shows_each_version_with_its_example(
    engine: Engine, subscriber: Subscriber
) -> None:
    """The tenant's catalogue (``PUT /v1/event-types/{topic}``), read by the portal token."""
    _need_browser()
    example = {"invoiceId": "inv-1", "amount": 4200, "currency": "EUR"}

    server = TestServer(engine.app(), host="127.0.0.1")
    await server.start_server()
    errors: list[str] = []
    try:
        issued = await engine.tenants.create("acme")
        async with aiohttp.ClientSession() as http:
            acme = Client(http, str(server.make_url("")).rstrip("/"), issued.token)
            assert (await acme.call("POST", "/v1/consumers", {"id": "c", "name": "C"}))[0] == 201
            invoice = {
                "description": "An invoice was paid in full",
                "versions": {
                    "1": {"schema": {"type": "object"}, "example": example},
                    "2": {"schema": {"type": "object"}, "example": {"v": 2}},
                },
            }
            status, _ = await acme.call("PUT", "/v1/event-types/invoice.paid", invoice)
            assert status == 200
            link = await _portal_link(acme, "c")
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                page = await browser.new_page()
                page.on("console", lambda m: _keep_error(errors, m))
                page.on("pageerror", lambda e: errors.append(str(e)))
                await page.goto(acme.base + "/console#portal=" + link["token"])
                await expect(page.locator("#subscriptions .note")).to_have_text("No endpoints yet.")
                await page.click('#nav a[data-view="event-types"]')
                item = page.locator('#catalogue-items .event-type[data-topic="invoice.paid"]')
                await item.wait_for()
                assert "An invoice was paid in full" in await item.inner_text()
                v1 = item.locator('[data-version="1"] pre')
                assert json.loads(await v1.inner_text()) == example
                assert json.loads(await item.locator('[data-version="2"] pre').inner_text()) == {
                    "v": 2
                }
            finally:
                await browser.close()
    finally:
        await server.close()
    assert errors == [], errors
