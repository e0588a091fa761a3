"""``PUT``/``GET /v1/portal/branding`` and ``GET /portal/{tenantId}``: values checked with
codes, nothing stored from a refused body, each tenant's own, readable by its consumers'
portal sessions and never set by them; the portal page's frame-ancestors is the tenant's
allow-list, none by default."""

from __future__ import annotations

import aiohttp

from hookproof.engine.runtime.daemon import Engine

from ..live import Client
from .conftest import new_tenant
from .test_portal import start_session

GOOD = {
    "displayName": "Acme Payments",
    "logoUrl": "https://cdn.acme.example/logo.svg",
    "accentColour": "#0969DA",
    "frameAncestors": ["https://app.acme.example", "https://admin.acme.example:8443"],
}


async def test_branding_is_checked_scoped_and_applied_to_the_portal_page(
    engine: Engine, base: str, http: aiohttp.ClientSession
) -> None:
    acme = await new_tenant(engine, http, base, "acme")
    other = await new_tenant(engine, http, base, "other")
    empty = {"displayName": None, "logoUrl": None, "accentColour": None, "frameAncestors": []}
    assert await acme.call("GET", "/v1/portal/branding") == (200, empty)

    async def page(tenant: str) -> aiohttp.ClientResponse:
        async with http.get(f"{base}/portal/{tenant}") as r:
            await r.read()
            return r

    r = await page(acme.tenant_id)  # default: nobody may frame it
    assert r.status == 200 and "frame-ancestors 'none'" in r.headers["Content-Security-Policy"]
    assert r.headers["X-Frame-Options"] == "DENY"

    for body, field, code in (
        ({"displayName": ""}, "displayName", "invalid_display_name"),
        ({"displayName": "x" * 81}, "displayName", "invalid_display_name"),
        ({"logoUrl": "http://cdn.acme.example/l.svg"}, "logoUrl", "invalid_logo_url"),
        ({"logoUrl": "https://user:pw@cdn.acme.example/l.svg"}, "logoUrl", "invalid_logo_url"),
        ({"logoUrl": "javascript:alert(1)"}, "logoUrl", "invalid_logo_url"),
        ({"logoUrl": "https://a.example/x'; script-src *"}, "logoUrl", "invalid_logo_url"),
        ({"accentColour": "blue"}, "accentColour", "invalid_accent_colour"),
        ({"accentColour": "#fff"}, "accentColour", "invalid_accent_colour"),
        ({"accentColour": "#ffee00"}, "accentColour", "low_contrast_accent"),
        ({"frameAncestors": ["*"]}, "frameAncestors", "invalid_frame_ancestor"),
        (
            {"frameAncestors": ["http://app.acme.example"]},
            "frameAncestors",
            "invalid_frame_ancestor",
        ),
        (
            {"frameAncestors": ["https://app.acme.example/path"]},
            "frameAncestors",
            "invalid_frame_ancestor",
        ),
        (
            {"frameAncestors": ["https://a.example; script-src *"]},
            "frameAncestors",
            "invalid_frame_ancestor",
        ),
        (
            {"frameAncestors": [f"https://h{i}.example" for i in range(11)]},
            "frameAncestors",
            "invalid_frame_ancestor",
        ),
    ):
        status, problem = await acme.call("PUT", "/v1/portal/branding", {**GOOD, **body})
        assert status == 400 and (problem["field"], problem["code"]) == (field, code), body
    assert await acme.call("GET", "/v1/portal/branding") == (200, empty)  # nothing half-set

    status, stored = await acme.call("PUT", "/v1/portal/branding", GOOD)
    assert status == 200 and stored == {**GOOD, "accentColour": "#0969da"}
    assert await acme.call("GET", "/v1/portal/branding") == (200, stored)
    assert await other.call("GET", "/v1/portal/branding") == (200, empty)  # its own only

    r = await page(acme.tenant_id)
    csp = r.headers["Content-Security-Policy"]
    assert "frame-ancestors https://app.acme.example https://admin.acme.example:8443" in csp
    assert "img-src 'self' https://cdn.acme.example" in csp
    assert "script-src 'self'" in csp and "unsafe" not in csp
    assert "X-Frame-Options" not in r.headers
    r = await page(other.tenant_id)
    assert "frame-ancestors 'none'" in r.headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in (await page("ten_" + "0" * 16)).headers["Content-Security-Policy"]

    # a portal session reads its tenant's branding, and cannot change it
    await acme.consumer("cust-a")
    session = await start_session(acme, "cust-a")
    assert session["embedUrl"].endswith(f"/portal/{acme.tenant_id}#portal={session['token']}")
    portal = Client(http, base, session["token"])
    assert await portal.call("GET", "/v1/portal/branding") == (200, stored)
    status, problem = await portal.call("PUT", "/v1/portal/branding", {"displayName": "Evil"})
    assert (status, problem["code"]) == (403, "portal_scope")
    status, _ = await Client(http, base, "nope").call("PUT", "/v1/portal/branding", GOOD)
    assert status == 401
