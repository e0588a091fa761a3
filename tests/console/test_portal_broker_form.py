"""The portal's Add endpoint form with a broker destination (issue 34, left over): a customer
adds an ``amqp`` destination (the test RabbitMQ) through the form in Debian's Chromium, against
a daemon process; it is listed with where it publishes, and the broker password typed into the
form is never shown back: not in the page, not in the API's answers."""

from __future__ import annotations

import urllib.parse
from pathlib import Path
from typing import Any

import aiohttp
import trustme

from tests.destinations.conftest import Rabbit, rabbit

from ..delivery.conftest import Subscriber
from ..live import Client, engine_env, new_tenant, start, stop
from .test_console_browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    _keep_error,
    _need_browser,
    async_playwright,
    expect,
)
from .test_views_browser import axe_clean, shoot

__all__ = ["rabbit"]

PASSWORD = "form-typed-broker-pw-7f3a"


async def test_portal_adds_an_amqp_destination_and_never_shows_its_password(
    db_url: str, tmp_path: Path, subscriber: Subscriber, ca: trustme.CA, rabbit: Rabbit
) -> None:
    _need_browser()
    allow = f"127.0.0.1:{subscriber.port},{rabbit.host}:{rabbit.port}"
    env = engine_env(db_url, tmp_path, subscriber.port, ca, HOOKPROOF_EGRESS_ALLOW=allow)
    daemon = await start(env, tmp_path)
    errors: list[str] = []
    try:
        _, token = await new_tenant(env, "acme")
        async with aiohttp.ClientSession() as http:
            acme = Client(http, daemon.base_url, token)
            assert (await acme.call("POST", "/v1/consumers", {"id": "c", "name": "c"}))[0] == 201
            status, link = await acme.call("POST", "/v1/consumers/c/portal-sessions")
            assert status == 201
            vhost = urllib.parse.quote(rabbit.vhost, safe="")
            url = f"amqp://{rabbit.host}:{rabbit.port}/{vhost}"
            async with async_playwright() as pw:
                browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                try:
                    page = await browser.new_page(viewport={"width": 1400, "height": 1000})
                    page.on("console", lambda m: _keep_error(errors, m))
                    page.on("pageerror", lambda e: errors.append(str(e)))
                    sent: list[Any] = []
                    page.on("request", lambda r: sent.append(r) if r.method == "POST" else None)
                    await page.goto(link["url"])
                    await expect(page.locator("#portal-consumer")).to_have_text("c")
                    await page.fill("#add-endpoint-url", url)
                    await page.fill("#add-endpoint-target", "hp.portal orders.created")
                    await page.fill("#add-endpoint-user", rabbit.username)
                    await page.fill("#add-endpoint-password", PASSWORD)
                    await page.fill("#add-endpoint-topics", "t")
                    await page.click("#add-endpoint")
                    result = page.locator("#add-endpoint-result")
                    await expect(result).to_contain_text("added ")
                    sid = await result.get_attribute("data-id")
                    assert sid and sid.startswith("sub_")
                    assert "sub_" not in await result.inner_text()  # the customer's words
                    # the form sent the destination, credentials included, to the API
                    body = next(r for r in sent if r.url.endswith("/v1/subscriptions"))
                    posted = body.post_data_json
                    assert posted["destination"]["type"] == "amqp"
                    assert posted["destination"]["credentials"]["password"] == PASSWORD
                    # listed, with where it publishes
                    row = page.locator(f'#subscriptions tbody tr[data-id="{sid}"]')
                    await row.wait_for()
                    shown = await row.inner_text()
                    assert "amqp://" in shown or url in shown
                    # the password is not kept in the form nor shown anywhere
                    await expect(page.locator("#add-endpoint-password")).to_have_value("")
                    assert PASSWORD not in await page.content()
                    await page.goto(link["url"].split("#")[0] + f"#/endpoint/{sid}")
                    await page.wait_for_function(
                        "() => document.body.dataset.rendered === location.hash"
                    )
                    assert PASSWORD not in await page.content()
                    await axe_clean(page, "portal broker endpoint")
                    await shoot(page, "portal-broker-endpoint")
                finally:
                    await browser.close()
            for path in ("/v1/subscriptions", f"/v1/subscriptions/{sid}"):
                status, doc = await acme.call("GET", path)
                assert status == 200 and PASSWORD not in str(doc), path
            status, doc = await acme.call("GET", f"/v1/subscriptions/{sid}")
            assert doc["destination"]["type"] == "amqp"
            assert doc["destination"]["exchange"] == "hp.portal"
    finally:
        await stop(daemon)
    assert errors == [], errors
