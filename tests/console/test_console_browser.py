"""The console in a real browser: Debian's Chromium driven by Playwright, against a daemon process
with a real HTTPS subscriber. Enter a token, see a subscription and a delivery's evidence
ladder, replay a dead letter from the page and watch its state change; recover a time range of
dead letters from the page and see exactly those inside it leave the list; screenshots are saved.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import trustme

from ..delivery.conftest import Subscriber
from ..live import ADMIN_TOKEN, Client, engine_env, new_tenant, start, stop, wait_for

CHROMIUM = os.environ.get("HOOKPROOF_TEST_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(
    os.environ.get("HOOKPROOF_TEST_ARTIFACTS", Path(__file__).parents[2] / "test-artifacts")
)

async_playwright: Any
expect: Any
try:
    from playwright.async_api import async_playwright, expect
except ImportError:  # pragma: no cover - the test extra installs it
    async_playwright = expect = None


def _need_browser() -> None:
    if async_playwright is None:
        pytest.skip("playwright (the test extra) is not installed")
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        pytest.skip(
            f"no Chromium at {CHROMIUM}: install Debian's chromium (apt-get install chromium)"
        )


def _keep_error(errors: list[str], message: Any) -> None:
    """Script errors and policy violations; an HTTP error answer is the page's business."""
    if message.type == "error" and not message.text.startswith("Failed to load resource"):
        errors.append(message.text)


async def test_console_token_subscription_ladder_and_replay(
    db_url: str, tmp_path: Path, subscriber: Subscriber, ca: trustme.CA
) -> None:
    _need_browser()
    env = engine_env(db_url, tmp_path, subscriber.port, ca)
    daemon = await start(env, tmp_path)
    errors: list[str] = []
    try:
        _, token = await new_tenant(env, "acme")
        _, other_token = await new_tenant(env, "other")
        async with aiohttp.ClientSession() as http:
            acme = Client(http, daemon.base_url, token)
            other = Client(http, daemon.base_url, other_token)
            ok_sid = await acme.subscribe(
                subscriber.url("ok-console"), ["t"], rateLimit={"perSecond": 50, "burst": 10}
            )
            dead_sid = await acme.subscribe(
                subscriber.url("fail500-console"),
                ["t"],
                retryPolicy={"initialDelayS": 0.1, "maxDelayS": 0.1, "maxAttempts": 1},
            )
            foreign_sid = await other.subscribe(subscriber.url("ok-other"), ["t"])
            out = await acme.publish("evt-console-1")
            by_sub = {d["subscriptionId"]: d["deliveryId"] for d in out["deliveries"]}
            ok_did, dead_did = by_sub[ok_sid], by_sub[dead_sid]
            await other.publish("evt-other-1")

            async def settled() -> bool:
                return (await acme.delivery_state(ok_did), await acme.delivery_state(dead_did)) == (
                    "ENDPOINT_ACCEPTED",
                    "DEAD_LETTER",
                )

            await wait_for(settled, what="one accepted, one dead letter")

            async with async_playwright() as pw:
                browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                try:
                    page = await browser.new_page(viewport={"width": 1400, "height": 1800})
                    page.on("console", lambda m: _keep_error(errors, m))
                    page.on("pageerror", lambda e: errors.append(str(e)))
                    resp = await page.goto(daemon.base_url + "/console")
                    assert resp is not None and resp.status == 200
                    csp = resp.headers["content-security-policy"]
                    assert "default-src 'none'" in csp and "script-src 'self'" in csp

                    # the token, entered once
                    await page.fill("#token", token)
                    await page.click("#use-token")
                    row = page.locator(f'#subscriptions tbody tr[data-id="{ok_sid}"]')
                    await row.wait_for()
                    assert await row.locator("td.state").inner_text() == "ACTIVE"
                    assert await row.locator("td.generation").inner_text() == "1"
                    assert await row.locator("td.profile").inner_text() == "hookproof.sig.v1"
                    assert await row.locator("td.rate-limit").inner_text() == "50/s, burst 10"
                    assert (
                        await page.locator("#who").inner_text()
                        == "tenant " + (await acme.call("GET", "/v1/whoami"))[1]["tenantId"]
                    )
                    # another tenant's subscription never shows
                    assert await page.locator(f'tr[data-id="{foreign_sid}"]').count() == 0
                    # the token stays in this tab's session storage: a reload keeps the view
                    await page.reload()
                    await row.wait_for()

                    # a delivery's evidence ladder and attempts: endpoint -> its deliveries
                    await row.locator("a").click()
                    await page.click("#endpoint-deliveries")
                    link = page.locator(f'#deliveries tr[data-id="{ok_did}"] a[href^="#/delivery"]')
                    await link.click()
                    await expect(page.locator("#delivery-state")).to_have_text("ENDPOINT_ACCEPTED")
                    ladder = page.locator("#ladder")
                    assert (
                        await ladder.locator('[data-rung="verified"]').get_attribute("data-value")
                        == "yes"
                    )
                    assert (
                        await ladder.locator('[data-rung="accepted"]').get_attribute("data-value")
                        == "yes"
                    )
                    assert (
                        await ladder.locator('[data-rung="application"]').get_attribute(
                            "data-value"
                        )
                        == "UNOBSERVABLE"
                    )
                    assert await page.locator("#attempts tbody tr").count() == 1
                    assert (
                        "ENDPOINT_ACCEPTED" in await page.locator("#attempts tbody tr").inner_text()
                    )
                    timeline = await page.locator("#delivery-timeline").inner_text()
                    assert (
                        "delivery.planned" in timeline and "delivery.endpoint_accepted" in timeline
                    )

                    # the dead letter, replayed from the page; the endpoint works again now
                    await page.click('#nav a[data-view="dead-letters"]')
                    dead_row = page.locator(f'#dead-letters tbody tr[data-id="{dead_did}"]')
                    await dead_row.wait_for()
                    subscriber.modes["fail500-console"] = "ok"
                    await dead_row.locator("button[data-replay]").click()
                    await expect(page.locator("#delivery .did")).to_have_text(dead_did)
                    await expect(page.locator("#delivery-state")).to_have_text(
                        "ENDPOINT_ACCEPTED", timeout=60_000
                    )
                    await dead_row.wait_for(state="detached")
                    await expect(page.locator("#attempts tbody tr")).to_have_count(2)
                    await asyncio.to_thread(ARTIFACTS.mkdir, parents=True, exist_ok=True)
                    shot = ARTIFACTS / "console.png"
                    await page.screenshot(path=str(shot), full_page=True)
                    assert len(await asyncio.to_thread(shot.read_bytes)) > 10_000

                    # the operator token sees the release gates, not the tenants' data
                    op = await browser.new_page()
                    op.on("console", lambda m: _keep_error(errors, m))
                    await op.goto(daemon.base_url + "/console")
                    await op.fill("#token", ADMIN_TOKEN)
                    await op.click("#use-token")
                    await op.locator(
                        '#gates tbody tr[data-gate="challenge_false_activations"]'
                    ).wait_for()
                    assert await op.locator("#who").inner_text() == "operator"
                    assert await op.locator("#subscriptions tbody tr").count() == 0
                    await op.screenshot(
                        path=str(ARTIFACTS / "console-operator.png"), full_page=True
                    )
                finally:
                    await browser.close()
            assert await acme.delivery_state(dead_did) == "ENDPOINT_ACCEPTED"
    finally:
        await stop(daemon)
    assert errors == [], errors


async def test_console_recover_range_takes_back_exactly_the_dead_letters_inside_it(
    db_url: str, tmp_path: Path, subscriber: Subscriber, ca: trustme.CA
) -> None:
    _need_browser()
    env = engine_env(db_url, tmp_path, subscriber.port, ca)
    daemon = await start(env, tmp_path)
    errors: list[str] = []
    try:
        _, token = await new_tenant(env, "acme")
        _, other_token = await new_tenant(env, "other")
        async with aiohttp.ClientSession() as http:
            acme = Client(http, daemon.base_url, token)
            other = Client(http, daemon.base_url, other_token)
            sid = await acme.subscribe(
                subscriber.url("fail500-range"),
                ["t"],
                retryPolicy={"initialDelayS": 0.1, "maxDelayS": 0.1, "maxAttempts": 1},
            )
            foreign_sid = await other.subscribe(subscriber.url("ok-other"), ["t"])

            async def dead(event_ids: list[str]) -> list[str]:
                dids = []
                for event_id in event_ids:
                    [d] = (await acme.publish(event_id))["deliveries"]
                    dids.append(d["deliveryId"])

                async def all_dead() -> bool:
                    states = [await acme.delivery_state(d) for d in dids]
                    return states == ["DEAD_LETTER"] * len(dids)

                await wait_for(all_dead, what=f"{event_ids} dead-lettered")
                await asyncio.sleep(0.05)  # the next batch dead-letters strictly later
                return dids

            before = await dead(["evt-r-0"])
            since = datetime.now(UTC).isoformat()
            inside = await dead(["evt-r-1", "evt-r-2"])
            until = datetime.now(UTC).isoformat()
            after = await dead(["evt-r-3"])
            outside = before + after
            subscriber.modes["fail500-range"] = "ok"  # the subscriber works again

            async with async_playwright() as pw:
                browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                try:
                    # the form's date pickers read this browser's time zone: UTC here
                    page = await browser.new_page(
                        viewport={"width": 1400, "height": 1400}, timezone_id="UTC"
                    )
                    page.on("console", lambda m: _keep_error(errors, m))
                    page.on("pageerror", lambda e: errors.append(str(e)))
                    await page.goto(daemon.base_url + "/console")
                    await page.fill("#token", token)
                    await page.click("#use-token")
                    await page.click('#nav a[data-view="dead-letters"]')
                    for did in inside + outside:
                        await page.locator(f'#dead-letters tbody tr[data-id="{did}"]').wait_for()
                    result = page.locator("#recover-result")

                    # the endpoint: chosen from the tenant's own (the newest failure's is
                    # chosen already), never another tenant's
                    await expect(page.locator("#recover-subscription")).to_have_value(sid)
                    offered = await page.locator("#recover-subscription option").evaluate_all(
                        "(os) => os.map((o) => o.value)"
                    )
                    assert offered == [sid] and foreign_sid not in offered

                    def picked(iso: str) -> str:  # the pickers' value: to the millisecond
                        return datetime.fromisoformat(iso).strftime("%Y-%m-%dT%H:%M:%S.%f")[:23]

                    # errors come from the problem's code and detail
                    await page.fill("#recover-since", picked(until))
                    await page.fill("#recover-until", picked(since))
                    await page.click("#recover")
                    await expect(result).to_contain_text("400 invalid_request")
                    await expect(result).to_have_class("error")
                    assert await page.locator("#dead-letters tbody tr").count() == 4

                    # the range, recovered from the page
                    await page.fill("#recover-since", picked(since))
                    await page.fill("#recover-until", picked(until))
                    await page.click("#recover")
                    await expect(result).to_have_attribute("data-recovered", "2")
                    await expect(result).to_contain_text(f"recovered 2 deliveries of {sid}")
                    for did in inside:
                        await page.locator(f'#dead-letters tbody tr[data-id="{did}"]').wait_for(
                            state="detached"
                        )
                    await expect(page.locator("#dead-letters tbody tr")).to_have_count(2)
                    for did in outside:
                        assert await page.locator(
                            f'#dead-letters tbody tr[data-id="{did}"]'
                        ).is_visible()
                    await asyncio.to_thread(ARTIFACTS.mkdir, parents=True, exist_ok=True)
                    shot = ARTIFACTS / "console-recover.png"
                    await page.screenshot(path=str(shot), full_page=True)
                    assert len(await asyncio.to_thread(shot.read_bytes)) > 10_000

                    # repeated: nothing new comes back
                    await page.click("#recover")
                    await expect(result).to_have_attribute("data-recovered", "0")
                finally:
                    await browser.close()

            async def delivered() -> bool:
                states = [await acme.delivery_state(d) for d in inside]
                return states == ["ENDPOINT_ACCEPTED"] * len(inside)

            await wait_for(delivered, what="the recovered deliveries accepted")
            for did in outside:
                assert await acme.delivery_state(did) == "DEAD_LETTER"
            status, view = await acme.call("GET", f"/v1/deliveries/{inside[0]}")
            assert status == 200 and [a["attempt"] for a in view["attempts"]] == [1, 2]
    finally:
        await stop(daemon)
    assert errors == [], errors
