"""The console's rough edges (issue 48, item 8), in Debian's Chromium through Playwright
against the engine's app and a real HTTPS subscriber: an unknown delivery id shows its 404
alone (nothing of the delivery shown before it), the search matches the start of a delivery id
or an event id (the server's ``idPrefix``), an empty result is a plain note and not an error,
the endpoints table fits a 1280 px window, and the operator's token sees only its own tabs."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from hookproof.config import Settings
from hookproof.engine.runtime.daemon import Engine

from ..delivery.conftest import Subscriber, active_subscription, dispatch_all, publish
from ..live import ADMIN_TOKEN, Client
from .test_console_browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    _keep_error,
    _need_browser,
    async_playwright,
    expect,
)
from .test_views_browser import rows, shoot

TOPICS = ["order.created"]
UNKNOWN = "dlv_" + "0" * 28


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """The delivery tests' settings, with the operator token the live daemons have."""
    return dataclasses.replace(settings, env={"HOOKPROOF_ADMIN_TOKEN": ADMIN_TOKEN})


@pytest.fixture
async def base(engine: Engine) -> AsyncIterator[str]:
    server = TestServer(engine.app(), host="127.0.0.1")
    await server.start_server()
    yield str(server.make_url("")).rstrip("/")
    await server.close()


async def _search(page: Any, text: str, hash_part: str) -> set[str]:
    await page.fill("#f-search", text)
    await page.click("#f-apply")
    await page.wait_for_function("(p) => location.hash.includes(p)", arg=hash_part)
    return await rows(page)


async def test_console_search_not_found_width_and_operator_tabs(
    engine: Engine, base: str, subscriber: Subscriber
) -> None:
    _need_browser()
    acme = await engine.tenants.create("acme")
    long_path = "ok-" + "a-rather-long-path-segment-" * 4  # a long address must wrap, not spill
    subs = [
        await active_subscription(
            engine,
            acme.tenant_id,
            subscriber.url(f"{long_path}{i}"),
            topics=TOPICS,
            rateLimit={"perSecond": 50, "burst": 10},
        )
        for i in range(3)
    ]
    published = {}
    for event_id in ("order-1", "order-2", "refund-1"):
        published[event_id] = [
            d["deliveryId"] for d in (await publish(engine, acme.tenant_id, event_id)).deliveries
        ]
    await dispatch_all(engine)
    everything = {d for ds in published.values() for d in ds}
    first = published["order-1"][0]
    # the start of one delivery id, and every delivery whose id starts so
    prefix = first[:5]
    by_prefix = {d for d in everything if d.startswith(prefix)}

    errors: list[str] = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = await browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("console", lambda m: _keep_error(errors, m))
            page.on("pageerror", lambda e: errors.append(str(e)))
            await page.goto(base + "/console")
            await page.fill("#token", acme.token)
            await page.click("#use-token")
            await page.locator(f'#subscriptions tbody tr[data-id="{subs[2]}"]').wait_for()
            await page.locator(f'div[data-chart="{subs[2]}"] svg.chart').wait_for()  # drawn
            # the endpoints table fits the 1280 px window: no sideways scrolling
            width = await page.evaluate(
                """() => ({page: document.documentElement.scrollWidth,
                          table: document.querySelector('#subscriptions table')
                              .getBoundingClientRect().right,
                          window: window.innerWidth})"""
            )
            assert width["page"] <= width["window"], width
            assert width["table"] <= width["window"], width
            await shoot(page, "console-endpoints-1280")

            # a delivery, then an unknown id: the 404 alone
            await page.goto(base + f"/console#/delivery/{first}")
            await expect(page.locator("#delivery-event")).to_have_text("order-1")
            await page.goto(base + f"/console#/delivery/{UNKNOWN}")
            await expect(page.locator("#delivery-error")).to_contain_text("404")
            await expect(page.locator("#delivery-detail")).to_be_hidden()
            shown = await page.locator("#view-delivery").inner_text()
            assert "order-1" not in shown and first not in shown, shown
            assert "Evidence ladder" not in shown, shown
            # and a known one again shows it, without the 404
            await page.goto(base + f"/console#/delivery/{first}")
            await expect(page.locator("#delivery-event")).to_have_text("order-1")
            await expect(page.locator("#delivery-error")).to_be_hidden()

            # search: the start of an event id, of a delivery id, the whole delivery id
            await page.goto(base + "/console#/deliveries")
            assert await rows(page) == everything
            got = await _search(page, "order-", "idPrefix=order-")
            assert got == set(published["order-1"] + published["order-2"])
            assert await _search(page, "refund", "idPrefix=refund") == set(published["refund-1"])
            assert await _search(page, prefix, f"idPrefix={prefix}") == by_prefix
            assert await _search(page, first, f"deliveryId={first}") == {first}
            # nothing matches: a plain note, not an error
            assert await _search(page, "nothing-like-it", "idPrefix=nothing") == set()
            await expect(page.locator("#log-empty")).to_have_text("No deliveries match.")
            await expect(page.locator("#log-error")).to_have_text("")
            assert await page.locator("#log-empty").get_attribute("class") == "note"
            assert await page.locator("#log-empty").evaluate(
                "(p) => getComputedStyle(p).color"
            ) != await page.locator("#log-error").evaluate("(p) => getComputedStyle(p).color")
            # a refused filter is still an error, and the note is gone
            await page.goto(base + "/console#/deliveries?state=GREEN")
            await expect(page.locator("#log-error")).to_contain_text("400 invalid_state")
            await expect(page.locator("#log-empty")).to_have_text("")

            # the operator: its own tabs only, and a tenant's view by URL lands on its own
            op = await browser.new_page(viewport={"width": 1280, "height": 900})
            op.on("console", lambda m: _keep_error(errors, m))
            op.on("pageerror", lambda e: errors.append(str(e)))
            await op.goto(base + "/console#/endpoints")
            await op.fill("#token", ADMIN_TOKEN)
            await op.click("#use-token")
            await expect(op.locator("#view-gates")).to_be_visible()
            assert op.url.endswith("#/gates")
            tabs = await op.locator("#nav a:visible").all_inner_texts()
            assert tabs == ["Release gates", "Rollouts"], tabs
            for view in ("deliveries", "dead-letters", "event-types", f"delivery/{first}"):
                await op.goto(base + f"/console#/{view}")
                await expect(op.locator("#view-gates")).to_be_visible()
                assert op.url.endswith("#/gates"), view
            assert "enter a tenant token" not in await op.locator("body").inner_text()
        finally:
            await browser.close()
    async with aiohttp.ClientSession() as http:  # the engine's own answer, for the record
        status, _ = await Client(http, base, acme.token).call("GET", f"/v1/deliveries/{UNKNOWN}")
        assert status == 404
    assert errors == [], errors
