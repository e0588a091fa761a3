"""The console and the portal as products, in Debian's Chromium through Playwright, against a
daemon process and a real HTTPS subscriber: every view reached by navigation and by its URL;
the delivery log filtered by each filter and searched by event id against real deliveries
(accepted, in retry, dead-lettered), its filters in the URL with back and forward, paged; an
attempt's response excerpt; a test event sent from the portal reaching the HTTPS receiver and
shown as a test; charts with axes, counts and a legend; the portal in the customer's words
under the tenant's branding; another consumer's link sees nothing of this one's; a bad or ended
link shows the customer's page; axe-core finds no serious or critical violation. Screenshots
of each view are saved (test-artifacts/views-*.png)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

import aiohttp
import pytest
import trustme

from ..delivery.conftest import Subscriber
from ..live import ADMIN_TOKEN, Client, engine_env, new_tenant, start, stop, wait_for
from .test_console_browser import (
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    _keep_error,
    _need_browser,
    async_playwright,
    expect,
)

AXE = Path(__file__).parent / "a11y" / "node_modules" / "axe-core" / "axe.min.js"
EXAMPLE = {"orderId": "ord_example", "amount": 4200}
SLOW_RETRY = {"initialDelayS": 600, "maxDelayS": 600, "maxAttempts": 5}
ONCE = {"initialDelayS": 0.1, "maxDelayS": 0.1, "maxAttempts": 1}


async def axe_clean(page: Any, what: str) -> None:
    """axe-core (WCAG 2 A/AA rules) over the page as shown: no serious or critical finding.
    Injected through the DevTools protocol, so the page's own CSP stays as it is."""
    if not AXE.exists():
        pytest.skip(f"axe-core is not installed: cd {AXE.parents[2]} && npm ci")
    source = await asyncio.to_thread(AXE.read_text)
    if not await page.evaluate("typeof window.axe !== 'undefined'"):
        await page.evaluate(source)
    found = await page.evaluate(
        """async () => (await axe.run(document, {runOnly: ['wcag2a', 'wcag2aa', 'best-practice']}))
        .violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => ({id: v.id, impact: v.impact, help: v.help,
                      nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' '))}))"""
    )
    assert found == [], (what, found)


async def shoot(page: Any, name: str) -> None:
    await asyncio.to_thread(ARTIFACTS.mkdir, parents=True, exist_ok=True)
    shot = ARTIFACTS / f"views-{name}.png"
    await page.screenshot(path=str(shot), full_page=True)
    assert len(await asyncio.to_thread(shot.read_bytes)) > 5_000


async def rendered(page: Any) -> None:
    """The view the address names is drawn (views.js marks the body when it is)."""
    await page.wait_for_function(
        "() => location.hash !== '' && document.body.dataset.rendered === location.hash"
    )


async def rows(page: Any) -> set[str]:
    await rendered(page)
    ids = await page.locator("#deliveries tbody tr").evaluate_all(
        "(trs) => trs.map((tr) => tr.dataset.id)"
    )
    return set(ids)


async def settle_log(page: Any, hash_part: str) -> set[str]:
    await page.wait_for_function("(p) => location.hash.includes(p)", arg=hash_part)
    return await rows(page)


@pytest.fixture
async def world(db_url: str, tmp_path: Path, subscriber: Subscriber, ca: trustme.CA) -> Any:
    _need_browser()
    env = engine_env(db_url, tmp_path, subscriber.port, ca, HOOKPROOF_STATS_INTERVAL_S="0.2")
    daemon = await start(env, tmp_path)
    try:
        _, token = await new_tenant(env, "acme")
        async with aiohttp.ClientSession() as http:
            acme = Client(http, daemon.base_url, token)
            for cid in ("cust-a", "cust-b"):
                assert (await acme.call("POST", "/v1/consumers", {"id": cid, "name": cid}))[
                    0
                ] == 201
            for topic in ("t", "u"):
                kind = {
                    "description": f"the {topic} event",
                    "versions": {"1": {"schema": {"type": "object"}, "example": EXAMPLE}},
                }
                assert (await acme.call("PUT", f"/v1/event-types/{topic}", kind))[0] == 200
            both = ["t", "u"]
            sub = {
                "ok": await acme.subscribe(subscriber.url("ok-v"), both, consumerId="cust-a"),
                "dead": await acme.subscribe(
                    subscriber.url("fail500-v"), both, consumerId="cust-a", retryPolicy=ONCE
                ),
                "retry": await acme.subscribe(
                    subscriber.url("fail500-vr"), both, consumerId="cust-a", retryPolicy=SLOW_RETRY
                ),
                "echo": await acme.subscribe(
                    subscriber.url("echo-v"), ["t"], consumerId="cust-a", retryPolicy=ONCE
                ),
                "ok2": await acme.subscribe(subscriber.url("ok-v2"), both, consumerId="cust-a"),
                "ok3": await acme.subscribe(subscriber.url("ok-v3"), both, consumerId="cust-a"),
                "b": await acme.subscribe(subscriber.url("ok-vb"), both, consumerId="cust-b"),
            }
            out: dict[str, Any] = {}
            for i in range(4):  # under the failing endpoints' breaker threshold (5)
                out[f"evt-{i}"] = await acme.publish(f"evt-{i}", consumerId="cust-a")
            out["evt-u"] = await acme.publish("evt-u", topic="u", consumerId="cust-a")
            out["evt-b"] = await acme.publish("evt-b", consumerId="cust-b")
            by = {
                (e, d["subscriptionId"]): d["deliveryId"]
                for e, o in out.items()
                for d in o["deliveries"]
            }
            want = {
                "ok": "ENDPOINT_ACCEPTED",
                "dead": "DEAD_LETTER",
                "retry": "RETRYABLE",
                "echo": "DEAD_LETTER",
            }

            want["b"] = want["ok2"] = want["ok3"] = "ENDPOINT_ACCEPTED"
            names = {v: k for k, v in sub.items()}

            async def settled() -> bool:
                for (_, sid), did in by.items():
                    if await acme.delivery_state(did) != want[names[sid]]:
                        return False
                return True

            await wait_for(settled, what="accepted, dead-lettered and in retry")
            yield {"daemon": daemon, "acme": acme, "token": token, "sub": sub, "by": by}
    finally:
        await stop(daemon)


async def request_shown(page: Any, detail: Any, sent: Any) -> None:
    """The attempt's request as the page shows it: every header the receiver got with the
    value it got, signatures ``[redacted]`` (their values nowhere in the page), and the request
    body, the bytes the receiver got."""
    table = detail.locator("table.request-headers")
    await expect(table).to_be_visible()
    shown = {
        k.lower(): v
        for k, v in await table.locator("tr").evaluate_all(
            "(trs) => trs.map((tr) => [tr.cells[0].textContent, tr.cells[1].textContent])"
        )
    }
    got = {k.lower(): v for k, v in sent.headers.items()}
    for name in ("webhook-id", "webhook-delivery-id", "content-digest", "traceparent"):
        assert shown[name] == got[name], name
    assert shown["signature"] == shown["signature-input"] == "[redacted]"
    content = await page.content()
    assert got["signature"] not in content and got["signature-input"] not in content
    assert (await page.locator("#request-body").text_content()).encode() == sent.body


async def latency_drawn(chart: Any) -> None:
    """A big chart's latency: p50 <= p90 <= p99 in its data, lines with a right-hand axis in
    ms, and a legend entry per percentile with its value."""
    await expect(chart).not_to_have_attribute("data-p50", "")
    p50, p90, p99 = [
        float(await chart.get_attribute(f"data-{q}") or "nan") for q in ("p50", "p90", "p99")
    ]
    assert 0 < p50 <= p90 <= p99
    assert await chart.locator('svg text[data-axis="latency"]').count() == 2
    assert await chart.locator('svg circle[data-latency="p99"]').count() >= 1
    legend = await chart.locator(".chart-legend").inner_text()
    assert "median (p50):" in legend and "p99:" in legend and " ms" in legend
    assert "response time p50" in await chart.locator(".chart-summary").inner_text()


async def test_console_views_log_filters_and_attempt_detail(
    world: Any, subscriber: Subscriber
) -> None:
    base, token, sub, by = world["daemon"].base_url, world["token"], world["sub"], world["by"]
    errors: list[str] = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = await browser.new_page(viewport={"width": 1400, "height": 1100})
            page.on("console", lambda m: _keep_error(errors, m))
            page.on("pageerror", lambda e: errors.append(str(e)))
            await page.goto(base + "/console")
            await axe_clean(page, "token form")
            await page.fill("#token", token)
            await page.keyboard.press("Enter")
            await page.locator(f'#subscriptions tbody tr[data-id="{sub["ok"]}"]').wait_for()
            assert page.url.endswith("#/endpoints")
            await axe_clean(page, "endpoints")
            await shoot(page, "console-endpoints")

            # each view by navigation (keyboard: the nav links are reachable and work)
            await page.locator('#nav a[data-view="deliveries"]').focus()
            await page.keyboard.press("Enter")
            everything = await settle_log(page, "#/deliveries")
            mine = set(by.values())  # the tenant sees every consumer's
            assert len(everything) == 25 and everything <= mine  # the first page of 30
            await expect(page.locator('#nav a[aria-current="page"]')).to_have_text("Deliveries")
            await axe_clean(page, "deliveries")
            await page.click("#page-next")
            older = await settle_log(page, "cursor=")
            assert older | everything == mine and not older & everything
            await page.go_back()
            assert await settle_log(page, "#/deliveries") == everything

            # each filter, applied from the form: the URL carries it, the rows obey it
            async def filtered(fill: Any, hash_part: str) -> set[str]:
                await page.click("#f-clear")
                await settle_log(page, "#/deliveries")
                await fill()
                await page.click("#f-apply")
                return await settle_log(page, hash_part)

            got = await filtered(
                lambda: page.select_option("#f-subscription", sub["retry"]),
                f"subscriptionId={sub['retry']}",
            )
            assert got == {d for (e, s), d in by.items() if s == sub["retry"]}
            got = await filtered(
                lambda: page.select_option("#f-state", "DEAD_LETTER"), "state=DEAD_LETTER"
            )
            assert got == {d for (e, s), d in by.items() if s in (sub["dead"], sub["echo"])}
            dead_rows = got
            got = await filtered(
                lambda: page.select_option("#f-state", "RETRYABLE"), "state=RETRYABLE"
            )
            assert got == {d for (e, s), d in by.items() if s == sub["retry"]}
            got = await filtered(
                lambda: page.select_option("#f-evidence", "ENDPOINT_ACCEPTED"),
                "evidence=ENDPOINT_ACCEPTED",
            )
            accepted = {sub[k] for k in ("ok", "ok2", "ok3", "b")}
            assert got == {d for (e, s), d in by.items() if s in accepted}
            got = await filtered(lambda: page.fill("#f-event-type", "u"), "eventType=u")
            assert got == {d for (e, s), d in by.items() if e == "evt-u"}
            got = await filtered(lambda: page.fill("#f-search", "evt-3"), "idPrefix=evt-3")
            assert got == {d for (e, s), d in by.items() if e == "evt-3"}
            did = by["evt-2", sub["dead"]]
            assert await filtered(lambda: page.fill("#f-search", did), "deliveryId=") == {did}
            got = await filtered(lambda: page.fill("#f-since", "2999-01-01T00:00"), "since=2999")
            assert got == set()
            await expect(page.locator("#log-empty")).to_have_text("No deliveries match.")
            await expect(page.locator("#log-error")).to_have_text("")
            got = await filtered(lambda: page.fill("#f-until", "2999-01-01T00:00"), "until=2999")
            assert len(got) == 25
            # back and forward walk the filters
            await page.go_back()  # the cleared form
            assert await settle_log(page, "#/deliveries") == everything
            await page.go_back()
            assert await settle_log(page, "since=2999") == set()
            await expect(page.locator("#f-since")).to_have_value("2999-01-01T00:00")
            await page.go_forward()
            await page.go_forward()
            assert len(await settle_log(page, "until=2999")) == 25
            # a bad filter typed into the URL is refused with its code, not shown as empty
            await page.goto(base + "/console#/deliveries?state=GREEN")
            await expect(page.locator("#log-error")).to_contain_text("400 invalid_state")

            # each view by its URL (the token stays in this tab)
            await page.goto(base + "/console#/deliveries?state=DEAD_LETTER")
            assert await rows(page) == dead_rows
            await shoot(page, "console-deliveries")
            echo_did = by["evt-0", sub["echo"]]
            await page.goto(base + f"/console#/delivery/{echo_did}")
            await expect(page.locator("#delivery-state")).to_have_text("DEAD_LETTER")
            detail = page.locator('#attempt-details details[data-attempt="1"]')
            await detail.locator("summary").click()
            await expect(detail.locator("pre.excerpt")).to_contain_text("refused; you sent {")
            assert "[redacted]" in await detail.locator("table.kv").last.inner_text()
            assert "s3cr3t-cookie" not in await page.content()
            # what was sent: the request the receiver got, signatures redacted
            sent = next(
                r
                for r in subscriber.deliveries("echo-v")
                if r.headers.get("Webhook-Delivery-Id") == echo_did
            )
            await request_shown(page, detail, sent)
            await axe_clean(page, "delivery")
            await shoot(page, "console-delivery")
            await page.goto(base + f"/console#/endpoint/{sub['ok']}")
            await rendered(page)
            chart = page.locator("#chart-24h .holder")
            await expect(chart).to_have_attribute("data-total", "5")
            await expect(chart).to_have_attribute("data-success-rate", "100")
            assert await chart.locator('svg text[data-axis="x"]').count() == 8
            assert await chart.locator('svg text[data-axis="y"]').evaluate_all(
                "(ts) => ts.map((t) => t.textContent)"
            ) == ["0", "5"]
            assert "accepted: 5" in await chart.locator(".chart-legend").inner_text()
            await latency_drawn(chart)
            await expect(page.locator("#chart-7d .holder")).to_have_attribute("data-total", "5")
            await latency_drawn(page.locator("#chart-7d .holder"))
            assert await page.locator('#chart-7d svg text[data-axis="x"]').count() == 7
            await axe_clean(page, "endpoint")
            await shoot(page, "console-endpoint")
            for view, ready in (
                ("event-types", '#catalogue-items .event-type[data-topic="u"]'),
                ("dead-letters", f'#dead-letters tbody tr[data-id="{did}"]'),
                ("endpoints", f'#subscriptions tbody tr[data-id="{sub["echo"]}"]'),
            ):
                await page.goto(base + f"/console#/{view}")
                await page.locator(ready).wait_for()
                await axe_clean(page, view)
                await shoot(page, f"console-{view}")
                await page.locator('#nav a[data-view="deliveries"]').click()
                await page.go_back()
                await page.locator(ready).wait_for()  # back returns to the view

            # the operator: gates and rollouts, by navigation and by URL
            op = await browser.new_page(viewport={"width": 1400, "height": 900})
            op.on("console", lambda m: _keep_error(errors, m))
            op.on("pageerror", lambda e: errors.append(str(e)))
            await op.goto(base + "/console#/rollouts")
            await op.fill("#token", ADMIN_TOKEN)
            await op.click("#use-token")
            await expect(op.locator("#view-rollouts")).to_be_visible()
            await op.locator('#nav a[data-view="gates"]').click()
            await op.locator('#gates tbody tr[data-gate="challenge_false_activations"]').wait_for()
            assert op.url.endswith("#/gates")
            await axe_clean(op, "gates")
            await shoot(op, "console-gates")
            await op.goto(base + "/console#/rollouts")
            await expect(op.locator("#view-rollouts")).to_be_visible()
            await axe_clean(op, "rollouts")
        finally:
            await browser.close()
    assert errors == [], errors


async def test_portal_speaks_the_customers_language_and_sends_test_events(
    world: Any, subscriber: Subscriber
) -> None:
    base, acme, sub, by = world["daemon"].base_url, world["acme"], world["sub"], world["by"]
    branding = {"displayName": "Acme Shop", "accentColour": "#6639ba", "frameAncestors": []}
    assert (await acme.call("PUT", "/v1/portal/branding", branding))[0] == 200
    links = {}
    for cid in ("cust-a", "cust-b"):
        status, links[cid] = await acme.call("POST", f"/v1/consumers/{cid}/portal-sessions")
        assert status == 201
    errors: list[str] = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = await browser.new_page(viewport={"width": 1400, "height": 1100})
            page.on("console", lambda m: _keep_error(errors, m))
            page.on("pageerror", lambda e: errors.append(str(e)))
            await page.goto(links["cust-a"]["embedUrl"])
            row = page.locator(f'#subscriptions tbody tr[data-id="{sub["ok"]}"]')
            await row.wait_for()
            assert "#portal=" not in page.url and page.url.endswith("#/endpoints")
            await expect(page.locator("#title")).to_have_text("Acme Shop webhooks")
            assert await row.locator("td.state").inner_text() == "Active"
            await expect(row.locator("td.last-delivery a")).to_contain_text("Delivered")
            header = await page.locator("#subscriptions thead").inner_text()
            assert "generation" not in header and "profile" not in header
            await expect(page.locator('#nav a[data-view="dead-letters"]')).to_have_text(
                "Failed deliveries"
            )
            assert not await page.locator('#nav a[data-view="gates"]').is_visible()
            await axe_clean(page, "portal endpoints")
            await shoot(page, "portal-endpoints")

            # a test event from the catalogue's example, to this one endpoint
            await row.locator("td.endpoint a").click()
            await expect(page.locator("#endpoint-signing")).to_contain_text(
                "How to verify a signature"
            )
            await page.select_option("#test-topic", "u")
            before = len(subscriber.deliveries("ok-v"))
            await page.click("#send-test")
            result = page.locator("#test-result")
            await expect(result).to_contain_text("Test event hookproof-test-")
            event_id = await result.get_attribute("data-event-id")
            await wait_for(
                lambda: _arrived(subscriber, before), what="the test event at the receiver"
            )
            body = json.loads(subscriber.deliveries("ok-v")[-1].body)
            assert body["eventId"] == event_id and body["payload"] == EXAMPLE
            assert not any(
                event_id.encode() in r.body for r in subscriber.deliveries() if r.path != "ok-v"
            )
            await result.locator("a").click()
            await expect(page.locator("#delivery-test")).to_be_visible()
            await expect(page.locator("#delivery-state")).to_have_text("Delivered", timeout=30_000)
            detail = page.locator('#attempt-details details[data-attempt="1"]')
            await detail.locator("summary").click()
            await request_shown(page, detail, subscriber.deliveries("ok-v")[-1])
            await axe_clean(page, "portal delivery")
            await shoot(page, "portal-delivery")
            # the log, searched by the test event's id, says test
            await page.goto(
                links["cust-a"]["embedUrl"].split("#")[0]
                + f"#/deliveries?eventId={quote(str(event_id))}"
            )
            await expect(page.locator("#deliveries tbody tr")).to_have_count(1)
            await expect(page.locator('#deliveries tbody [data-test="true"]')).to_have_text("test")
            # the endpoint's page: charts, and "retry what failed since" with its date picker
            await page.goto(page.url.split("#")[0] + f"#/endpoint/{sub['dead']}")
            await expect(page.locator("#chart-24h .holder")).to_have_attribute(
                "data-dead-letter", "5"
            )
            await latency_drawn(page.locator("#chart-24h .holder"))
            assert (
                await page.locator("#recover-one-since").get_attribute("type") == "datetime-local"
            )
            await page.fill("#recover-one-since", "2000-01-01T00:00")
            await page.click("#recover-one")
            await expect(page.locator("#recover-one-result")).to_have_attribute(
                "data-recovered", "5"
            )
            await axe_clean(page, "portal endpoint")
            await shoot(page, "portal-endpoint")
            for view in ("deliveries", "event-types", "dead-letters"):
                await page.locator(f'#nav a[data-view="{view}"]').click()
                await expect(page.locator(f"#view-{view}")).to_be_visible()
                await rendered(page)
                await axe_clean(page, f"portal {view}")
                await shoot(page, f"portal-{view}")

            # another consumer's link: nothing of this one's, even by URL
            other = await browser.new_page(viewport={"width": 1400, "height": 900})
            other.on("console", lambda m: _keep_error(errors, m))
            other.on("pageerror", lambda e: errors.append(str(e)))
            await other.goto(links["cust-b"]["url"])
            await other.locator(f'#subscriptions tbody tr[data-id="{sub["b"]}"]').wait_for()
            await other.goto(base + "/console#/deliveries")
            assert await rows(other) == {by["evt-b", sub["b"]]}
            await other.goto(base + f"/console#/delivery/{by['evt-0', sub['ok']]}")
            await expect(other.locator("#delivery-error")).to_have_text("No such delivery.")
            await expect(other.locator("#delivery-detail")).to_be_hidden()
            await other.goto(base + f"/console#/deliveries?eventId={quote(str(event_id))}")
            assert await rows(other) == set()
            content = await other.content()
            for name in ("ok", "dead", "retry", "echo"):
                assert sub[name] not in content

            # bad and ended links: the customer's page, never the token form
            for url in (
                base + "/console#portal=hpp_0123456789abcdef01234567_nope",
                base + "/console#portal=not a token",
                base + f"/portal/{links['cust-a']['embedUrl'].split('/portal/')[1].split('#')[0]}",
            ):
                bad = await browser.new_page()
                await bad.goto(url)
                await expect(bad.locator("#link-ended")).to_be_visible()
                assert not await bad.locator("#login").is_visible()
                assert not await bad.locator("#token").is_visible()
                await axe_clean(bad, "link ended")
                await shoot(bad, "portal-link-ended")
                await bad.close()
            assert (
                await acme.call("DELETE", f"/v1/portal-sessions/{links['cust-b']['sessionId']}")
            )[0] == 204
            await other.reload()
            await expect(other.locator("#link-ended")).to_be_visible()
            assert not await other.locator("#token").is_visible()
        finally:
            await browser.close()
    assert errors == [], errors


async def _arrived(subscriber: Subscriber, before: int) -> bool:
    return len(subscriber.deliveries("ok-v")) > before
