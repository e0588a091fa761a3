"""The portal as a tenant's customers meet it (issue 48, items 6 and 7), in Debian's Chromium
through Playwright against a daemon process, a real HTTPS subscriber, an HTTPS logo server and
an HTTPS page of another origin that frames the portal:

- every portal view, detail pages included, in the customer's words: no subscription or
  tenant ids, no "generation", no signature profile name, no engine state shown raw, no
  internal owner, actor or key id; the signature scheme named in plain words with a link to the
  daemon's page on verifying it;
- the failed deliveries' recover form: the endpoint chosen already, from a list of the
  customer's endpoints by address, and a date picker whose value (in the browser's time zone)
  goes to the API as an RFC 3339 time;
- "Close" says what is true: the page forgets the link, and the link still works until it
  expires (a portal token cannot end its own session; the test checks it still works);
- the tenant's logo loads on both addresses a customer is given (``url`` and ``embedUrl``):
  the page's policy allows exactly the logo's origin; the logo server counts the requests;
- a page of an origin in ``frameAncestors`` frames the portal, Chromium denies the third-party
  frame its storage (checked), and the portal still renders and lists deliveries in it.
"""

from __future__ import annotations

import ssl
import struct
import zlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import trustme
from aiohttp import web

from ..delivery.conftest import Subscriber
from ..live import Client, engine_env, new_tenant, start, stop, wait_for
from .test_console_browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    _keep_error,
    _need_browser,
    async_playwright,
    expect,
)
from .test_views_browser import axe_clean, rendered, shoot

OWNER = "team-payments-internal"
ONCE = {"initialDelayS": 0.1, "maxDelayS": 0.1, "maxAttempts": 1}
#: what a customer never reads on a portal page (the engine's words and ids)
ENGINE_WORDS = (
    "sub_",
    "ten_",
    "ps_",
    "generation",
    "Generation",
    "hookproof.sig.v1",
    "RFC 3339",
    "owner",
    OWNER,
    "tenant:",
    "portal:",
    "consumer:",
    "ENDPOINT_ACCEPTED",
    "APPLICATION_CONFIRMED",
    "DEAD_LETTER",
    "RETRYABLE",
    "UNKNOWN_TRANSPORT",
    "PLANNED",
    "DISPATCHING",
    "QUARANTINED",
    "PENDING_CHALLENGE",
    "ACTIVE",
    "UNOBSERVABLE",
    "PENDING",
    "delivery.",
    "subscription.",
)


def _png() -> bytes:
    """A 1x1 PNG (the tenant's logo)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\x66\x39\xba")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


class Sites:
    """Two HTTPS origins on loopback: the logo's (127.0.0.1, counting its requests) and the
    tenant's app (localhost), whose page frames the portal address it is given."""

    def __init__(self) -> None:
        self.logo_requests = 0
        self.frame_src = ""
        self.runners: list[web.AppRunner] = []

    async def start(self, ca: trustme.CA) -> None:
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ca.issue_cert("127.0.0.1", "localhost").configure_cert(ctx)
        png = _png()

        async def logo(_: web.Request) -> web.Response:
            self.logo_requests += 1
            return web.Response(body=png, content_type="image/png")

        async def app_page(_: web.Request) -> web.Response:
            html = (
                "<!doctype html><html lang='en'><head><title>Acme settings</title></head>"
                f"<body><h1>Acme settings</h1><iframe id='portal' title='webhooks' "
                f"src='{self.frame_src}' width='1300' height='900'></iframe></body></html>"
            )
            return web.Response(text=html, content_type="text/html")

        ports = []
        for path, handler in (("/logo.png", logo), ("/settings", app_page)):
            app = web.Application()
            app.router.add_get(path, handler)
            runner = web.AppRunner(app)
            await runner.setup()
            await web.TCPSite(runner, "127.0.0.1", 0, ssl_context=ctx).start()
            self.runners.append(runner)
            ports.append(runner.addresses[0][1])
        self.logo_origin = f"https://127.0.0.1:{ports[0]}"
        self.app_origin = f"https://localhost:{ports[1]}"

    async def close(self) -> None:
        for runner in self.runners:
            await runner.cleanup()


@pytest.fixture
async def sites(ca: trustme.CA) -> AsyncIterator[Sites]:
    s = Sites()
    await s.start(ca)
    yield s
    await s.close()


async def customer_words(page: Any, what: str, ids: list[str]) -> str:
    """The view's text, every attempt's detail opened, has none of the engine's words nor any
    internal id; only the table of the request's headers as the endpoint received them may
    name them (``Webhook-Subscription``, ``Webhook-Generation``: the signature covers them)."""
    await rendered(page)
    shown = await page.evaluate(
        """() => {
            for (const d of document.querySelectorAll('details')) d.open = true;
            const raw = [...document.querySelectorAll('table.request-headers')];
            for (const t of raw) t.hidden = true;
            const text = document.body.innerText;
            for (const t of raw) t.hidden = false;
            return text;
        }"""
    )
    for word in (*ENGINE_WORDS, *ids):
        assert word not in shown, (what, word, shown)
    return str(shown)


async def test_portal_in_the_customers_words_branded_and_embedded(
    db_url: str, tmp_path: Path, subscriber: Subscriber, ca: trustme.CA, sites: Sites
) -> None:
    _need_browser()
    env = engine_env(db_url, tmp_path, subscriber.port, ca)
    daemon = await start(env, tmp_path)
    errors: list[str] = []
    try:
        tenant_id, token = await new_tenant(env, "acme")
        async with aiohttp.ClientSession() as http:
            acme = Client(http, daemon.base_url, token)
            assert (await acme.call("POST", "/v1/consumers", {"id": "cust-a", "name": "A"}))[
                0
            ] == 201
            kind = {
                "description": "an order",
                "versions": {"1": {"schema": {"type": "object"}, "example": {"n": "x"}}},
            }
            assert (await acme.call("PUT", "/v1/event-types/t", kind))[0] == 200
            ok = await acme.subscribe(
                subscriber.url("ok-w"), ["t"], consumerId="cust-a", owner=OWNER
            )
            dead = await acme.subscribe(
                subscriber.url("fail500-w"),
                ["t"],
                consumerId="cust-a",
                owner=OWNER,
                retryPolicy=ONCE,
            )
            out = await acme.publish("ord-1", consumerId="cust-a")
            by = {d["subscriptionId"]: d["deliveryId"] for d in out["deliveries"]}

            async def settled() -> bool:
                return (
                    await acme.delivery_state(by[ok]),
                    await acme.delivery_state(by[dead]),
                ) == ("ENDPOINT_ACCEPTED", "DEAD_LETTER")

            await wait_for(settled, what="one accepted, one failed for good")
            _, view = await acme.call("GET", f"/v1/deliveries/{by[ok]}")
            key_ids = sorted({a["keyId"] for a in view["attempts"] if a.get("keyId")})
            assert key_ids  # the attempt was signed with a key the page must not name
            branding = {
                "displayName": "Acme Shop",
                "logoUrl": sites.logo_origin + "/logo.png",
                "accentColour": "#6639ba",
                "frameAncestors": [sites.app_origin],
            }
            assert (await acme.call("PUT", "/v1/portal/branding", branding))[0] == 200
            status, link = await acme.call("POST", "/v1/consumers/cust-a/portal-sessions")
            assert status == 201, link
            session_id = link["sessionId"]
            internal = [ok, dead, tenant_id, session_id, *key_ids]

            async with async_playwright() as pw:
                browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                try:
                    # the customer's browser is in Berlin (UTC+1 in winter)
                    context = await browser.new_context(
                        ignore_https_errors=True,
                        timezone_id="Europe/Berlin",
                        viewport={"width": 1400, "height": 1100},
                    )
                    page = await context.new_page()
                    page.on("console", lambda m: _keep_error(errors, m))
                    page.on("pageerror", lambda e: errors.append(str(e)))
                    policies: dict[str, str] = {}
                    page.on(
                        "response",
                        lambda r: (
                            policies.__setitem__(
                                r.url.split("#")[0], r.headers.get("content-security-policy", "")
                            )
                            if r.request.resource_type == "document"
                            else None
                        ),
                    )
                    posted: list[Any] = []
                    page.on(
                        "request",
                        lambda r: (
                            posted.append(r.post_data_json)
                            if r.method == "POST" and r.url.endswith("/recover")
                            else None
                        ),
                    )

                    # 1. the `url` customers are given: the portal's own address, logo shown
                    assert link["url"].startswith(daemon.base_url + "/console#portal=")
                    await page.goto(link["url"])
                    await expect(page.locator("#portal-consumer")).to_have_text("cust-a")
                    portal = daemon.base_url + f"/portal/{tenant_id}"
                    assert page.url == portal + "#/endpoints", page.url
                    await logo_shown(page)
                    assert sites.logo_requests == 1
                    assert policies[daemon.base_url + "/console"].count("img-src 'self';") == 1
                    assert f"img-src 'self' {sites.logo_origin};" in policies[portal]
                    assert f"frame-ancestors {sites.app_origin}" in policies[portal]

                    # 2. every view in the customer's words
                    await customer_words(page, "endpoints", internal)
                    for view in (
                        f"endpoint/{ok}",
                        f"endpoint/{dead}",
                        "deliveries",
                        f"deliveries?subscriptionId={dead}",
                        f"delivery/{by[ok]}",
                        f"delivery/{by[dead]}",
                        "event-types",
                        "dead-letters",
                    ):
                        await page.goto(portal + "#/" + view)
                        shown = await customer_words(page, view, internal)
                        if view.startswith("delivery/"):
                            assert "Delivered" in shown or "Failed" in shown, shown
                        await axe_clean(page, "portal " + view)
                    # the signature scheme in plain words, with the page on verifying it
                    await page.goto(portal + f"#/endpoint/{ok}")
                    await rendered(page)
                    signing = page.locator("#endpoint-signing")
                    await expect(signing).to_contain_text("public key (Ed25519)")
                    await expect(signing).to_contain_text("HTTP message signature (RFC 9421)")
                    docs = signing.locator('a[href="/console/verify"]')
                    await expect(docs).to_have_text("the steps and libraries")
                    guide = await context.new_page()
                    response = await guide.goto(daemon.base_url + "/console/verify")
                    assert response is not None and response.status == 200
                    await expect(guide.locator("h1")).to_have_text(
                        "How to verify a webhook's signature"
                    )
                    jwks = guide.locator('a[href="/.well-known/hookproof/jwks.json"]')
                    await expect(jwks).to_have_count(1)
                    await axe_clean(guide, "verify")
                    await guide.close()

                    # 3. the failed deliveries' recover form: endpoint chosen, date picked
                    await page.goto(portal + "#/dead-letters")
                    await rendered(page)
                    await expect(page.locator("#h-dead-letters")).to_have_text("Failed deliveries")
                    choose = page.locator("#recover-subscription")
                    assert await choose.evaluate("(s) => s.tagName") == "SELECT"
                    await expect(choose).to_have_value(dead)  # the failure's endpoint
                    labels = await choose.locator("option").all_inner_texts()
                    assert sorted(labels) == sorted(
                        [subscriber.url("ok-w"), subscriber.url("fail500-w")]
                    )
                    since = page.locator("#recover-since")
                    assert await since.get_attribute("type") == "datetime-local"
                    await since.fill("2000-01-01T00:00")
                    subscriber.modes["fail500-w"] = "ok"
                    await page.click("#recover")
                    result = page.locator("#recover-result")
                    await expect(result).to_have_attribute("data-recovered", "1")
                    # midnight in Berlin is 23:00 UTC the day before
                    assert posted == [{"since": "1999-12-31T23:00:00.000Z"}], posted
                    await expect(result).to_contain_text(subscriber.url("fail500-w"))
                    await customer_words(page, "recovered", internal)
                    await shoot(page, "portal-recovered")

                    # 4. Close: the page forgets the link, and says the link still works
                    await page.click("#forget")
                    closed = page.locator("#closed")
                    await expect(closed).to_be_visible()
                    await expect(closed).to_contain_text("still works until")
                    assert not await page.locator("#main").is_visible()
                    await axe_clean(page, "closed")
                    await page.reload()  # closed stays closed, and says the same
                    await expect(closed).to_contain_text("still works until")
                    assert not await page.locator("#link-ended").is_visible()
                    assert not await page.locator("#main").is_visible()
                    portal_token = Client(http, daemon.base_url, link["token"])
                    status, who = await portal_token.call("GET", "/v1/whoami")
                    assert status == 200 and who["consumerId"] == "cust-a"  # what it said

                    # 5. the embedUrl opened on its own: the logo again
                    own = await context.new_page()
                    own.on("console", lambda m: _keep_error(errors, m))
                    own.on("pageerror", lambda e: errors.append(str(e)))
                    await own.goto(link["embedUrl"])
                    await expect(own.locator("#portal-consumer")).to_have_text("cust-a")
                    await logo_shown(own)
                    assert sites.logo_requests == 2
                    await own.close()

                    # 6. framed by the tenant's app (another site): no storage, still works
                    sites.frame_src = link["embedUrl"]
                    app = await context.new_page()
                    app.on("console", lambda m: _keep_error(errors, m))
                    app.on("pageerror", lambda e: errors.append(str(e)))
                    await app.goto(sites.app_origin + "/settings")
                    inside = app.frame_locator("#portal")
                    await expect(inside.locator("#portal-consumer")).to_have_text("cust-a")
                    frame = next(f for f in app.frames if "/portal/" in f.url)
                    denied = await frame.evaluate(
                        """() => { try { window.sessionStorage.length; return 'allowed'; }
                                   catch (e) { return e.name; } }"""
                    )
                    assert denied == "SecurityError"  # Chromium's third-party frame
                    await logo_shown(frame)
                    assert sites.logo_requests == 3
                    await inside.locator('#nav a[data-view="deliveries"]').click()
                    await expect(inside.locator("#deliveries tbody tr")).to_have_count(2)
                    await inside.locator(f'#deliveries tr[data-id="{by[ok]}"] a').first.click()
                    await expect(inside.locator("#delivery-state")).to_have_text("Delivered")
                    await shoot(app, "portal-framed")
                finally:
                    await browser.close()
    finally:
        await stop(daemon)
    assert errors == [], errors


async def logo_shown(page: Any) -> None:
    """The tenant's logo is on the page, loaded (not blocked by the page's policy)."""
    await page.wait_for_function(
        """() => { const img = document.querySelector('#brand-logo');
                   return img && !img.hidden && img.complete && img.naturalWidth === 1; }"""
    )
