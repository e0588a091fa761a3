"""``GET /v1/deliveries``, the delivery log: each filter against real deliveries (accepted,
in retry, dead-lettered), search by event and delivery id, keyset pages, typed refusals,
tenants isolated; and an attempt's recorded response (headers, bounded excerpt, redacted)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from urllib.parse import quote

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from hookproof.engine.delivery.log import LOG_QUERIES, RARE_STATES, LogQuery, query_name
from hookproof.engine.runtime.daemon import Engine
from hookproof.events.sqlfiles import migration_files, query
from hookproof.projections.ledger import LEDGER_STATES

from ..delivery.conftest import Subscriber, active_subscription, dispatch_all, publish
from ..live import Client

TOPICS = ["order.created", "invoice.paid"]


@pytest.fixture
async def base(engine: Engine) -> AsyncIterator[str]:
    server = TestServer(engine.app(), host="127.0.0.1")
    await server.start_server()
    yield str(server.make_url("")).rstrip("/")
    await server.close()


def ids(page: dict[str, object]) -> set[str]:
    items = page["items"]
    assert isinstance(items, list)
    return {d["deliveryId"] for d in items}


async def test_the_log_is_filtered_searched_and_paged_by_the_api(
    engine: Engine, base: str, subscriber: Subscriber
) -> None:
    acme = await engine.tenants.create("acme")
    other = await engine.tenants.create("other")
    ok = await active_subscription(engine, acme.tenant_id, subscriber.url("ok-a"), topics=TOPICS)
    dead = await active_subscription(
        engine,
        acme.tenant_id,
        subscriber.url("fail500-a"),
        topics=TOPICS,
        retryPolicy={"maxAttempts": 1},
    )
    retry = await active_subscription(
        engine, acme.tenant_id, subscriber.url("busy-a"), topics=TOPICS
    )
    first = await publish(engine, acme.tenant_id, "evt-1")
    second = await publish(engine, acme.tenant_id, "evt-2", topic="invoice.paid")
    await dispatch_all(engine)
    by = {
        (e, d["subscriptionId"]): d["deliveryId"]
        for e, r in (("evt-1", first), ("evt-2", second))
        for d in r.deliveries
    }
    everything = set(by.values())
    async with aiohttp.ClientSession() as http:
        a = Client(http, base, acme.token)

        async def log(query: str) -> set[str]:
            status, page = await a.call("GET", "/v1/deliveries" + query)
            assert status == 200, (query, page)
            return ids(page)

        assert await log("") == everything
        assert await log(f"?subscriptionId={ok}") == {by["evt-1", ok], by["evt-2", ok]}
        assert await log("?eventType=invoice.paid") == {by["evt-2", s] for s in (ok, dead, retry)}
        assert await log("?state=DEAD_LETTER") == {by["evt-1", dead], by["evt-2", dead]}
        assert await log("?state=RETRYABLE") == {by["evt-1", retry], by["evt-2", retry]}
        accepted = {by["evt-1", ok], by["evt-2", ok]}
        # a common state: the time order's keys, the state checked on each ledger row
        assert await log("?state=ENDPOINT_ACCEPTED") == accepted
        assert await log("?state=PLANNED") == set()
        assert await log("?state=ENDPOINT_ACCEPTED&eventType=invoice.paid") == {by["evt-2", ok]}
        assert await log(f"?state=ENDPOINT_ACCEPTED&subscriptionId={dead}") == set()
        assert await log(f"?state=DEAD_LETTER&subscriptionId={dead}&limit=1") <= {
            by["evt-1", dead],
            by["evt-2", dead],
        }
        assert await log("?evidence=ENDPOINT_ACCEPTED") == accepted
        assert await log("?evidence=NONE") == everything - accepted
        assert await log("?evidence=APPLICATION_CONFIRMED") == set()
        assert await log("?eventId=evt-1") == {by["evt-1", s] for s in (ok, dead, retry)}
        assert await log(f"?deliveryId={by['evt-2', dead]}") == {by["evt-2", dead]}
        # the start of an id: a delivery's (dlv_...) or an event's
        assert await log("?idPrefix=evt-") == everything
        assert await log("?idPrefix=evt-2") == {by["evt-2", s] for s in (ok, dead, retry)}
        assert await log("?idPrefix=evt-3") == set()
        assert await log("?idPrefix=dlv_") == everything
        one = by["evt-2", dead]
        starts = {d for d in everything if d.startswith(one[:9])}
        assert one in starts and await log(f"?idPrefix={one[:9]}") == starts
        assert await log(f"?idPrefix={one}") == {one}
        assert await log(f"?idPrefix={one[:9]}&subscriptionId={ok}") == {
            d for d in starts if d in (by["evt-1", ok], by["evt-2", ok])
        }
        assert await log(f"?state=DEAD_LETTER&eventType=invoice.paid&subscriptionId={dead}") == {
            by["evt-2", dead]
        }
        assert await log("?since=2000-01-01T00:00:00Z&until=2999-01-01T00:00:00%2B02:00") == (
            everything
        )
        # an offset without its colon (OpenAPI Generator python's strftime %z): the same instant
        assert await log(
            "?since=2000-01-01T00:00:00.000000%2B0000&until=2999-01-01T00:00:00-0130"
        ) == (everything)
        assert await log("?since=2999-01-01T00:00:00.000000%2B0000") == set()
        assert await log("?since=2999-01-01T00:00:00Z") == set()
        assert await log("?until=2000-01-01T00:00:00Z") == set()

        # pages: newest first, disjoint, together everything, the last one says so
        seen: list[str] = []
        query = "?limit=4"
        while True:
            status, page = await a.call("GET", "/v1/deliveries" + query)
            assert status == 200 and len(page["items"]) <= 4
            seen += [d["deliveryId"] for d in page["items"]]
            if page["nextCursor"] is None:
                break
            query = "?limit=4&cursor=" + quote(page["nextCursor"])
        assert len(seen) == len(set(seen)) and set(seen) == everything
        created = [d["createdAt"] for d in (await a.call("GET", "/v1/deliveries"))[1]["items"]]
        assert created == sorted(created, reverse=True)

        # refusals, each with its code
        for query, field, code in (
            ("?state=GREEN_TICK", "state", "invalid_state"),
            ("?evidence=SURE", "evidence", "invalid_evidence"),
            ("?subscriptionId=sub_1", "subscriptionId", "invalid_id"),
            ("?deliveryId=dlv_zz", "deliveryId", "invalid_id"),
            ("?eventId=", "eventId", "invalid_id"),
            ("?idPrefix=", "idPrefix", "invalid_id_prefix"),
            ("?idPrefix=" + "e" * 201, "idPrefix", "invalid_id_prefix"),
            ("?eventType=" + "x" * 201, "eventType", "invalid_event_type"),
            ("?since=yesterday", "since", "invalid_time"),
            ("?until=2026-12-01T00:00:00", "until", "invalid_time"),
            ("?until=2026-12-01T00:00:00+0000", "until", "invalid_time"),  # '+' read as a space
            ("?until=2026-12-01T00:00:00%2B000", "until", "invalid_time"),
            (
                "?since=2026-12-02T00:00:00Z&until=2026-12-01T00:00:00Z",
                "since",
                "invalid_time_range",
            ),
            ("?limit=0", "limit", "invalid_limit"),
            ("?limit=1001", "limit", "invalid_limit"),
            ("?cursor=bm9wZQ", "cursor", "invalid_cursor"),
            ("?colour=red", "colour", "unknown_parameter"),
            ("?state=RETRYABLE&state=DEAD_LETTER", "state", "repeated_parameter"),
        ):
            status, problem = await a.call("GET", "/v1/deliveries" + query)
            assert status == 400, query
            assert (problem["code"], problem["field"]) == (code, field), query

        # the charts' windows: 24 hourly buckets, or 168 for the 7 days; nothing else
        for window, n in (("", 24), ("&window=24h", 24), ("&window=7d", 168)):
            status, stats = await a.call("GET", f"/v1/attempt-stats?subscriptionId={ok}{window}")
            assert status == 200 and len(stats["items"][0]["buckets"]) == n
            assert sum(sum(b["counts"].values()) for b in stats["items"][0]["buckets"]) <= 2
        status, problem = await a.call("GET", f"/v1/attempt-stats?subscriptionId={ok}&window=1y")
        assert (status, problem["code"]) == (400, "invalid_window")

        # another tenant: nothing of acme's, whatever it searches for
        o = Client(http, base, other.token)
        for query in (
            "",
            "?eventId=evt-1",
            f"?subscriptionId={ok}",
            f"?deliveryId={by['evt-1', ok]}",
            "?idPrefix=evt-1",
            f"?idPrefix={by['evt-1', ok][:10]}",
        ):
            status, page = await o.call("GET", "/v1/deliveries" + query)
            assert (status, page) == (200, {"items": [], "nextCursor": None}), query


def test_every_log_query_has_the_same_filters_after_its_leading_one() -> None:
    """The files differ only in the leading filter that picks their index: the keys queries
    (delivery_log's indexes) among themselves, the ledger's among themselves; and both kinds
    apply the same filters, keyset and page."""

    def body(name: str) -> str:
        text = query(name, "hookproof.engine")  # its include lines expanded
        lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith("--")]
        return "\n".join(ln for ln in lines if "-- the leading filter" not in ln)

    keys = body("deliveries_log")
    assert "ORDER BY k.created_at DESC, k.delivery_id DESC" in keys
    ledger = body("deliveries_log_by_state")
    assert "ORDER BY created_at DESC, delivery_id DESC" in ledger
    for _, name in LOG_QUERIES:
        assert body(name) in (keys, ledger), name
    assert body("deliveries_log_by_subscription") == keys
    assert body("deliveries_log_by_topic") == keys
    assert body("deliveries_log_by_event") == keys
    assert body("deliveries_log_by_id") == ledger

    def filters(name: str) -> list[str]:
        lines = body(name).splitlines()
        start = next(i for i, ln in enumerate(lines) if "$2::text IS NULL" in ln)
        end = next(i for i, ln in enumerate(lines) if ln.startswith("LIMIT"))
        return [ln.replace("k.", "").replace("d.", "") for ln in lines[start : end + 1]]

    assert filters("deliveries_log") == filters("deliveries_log_by_state")


def test_a_broad_delivery_id_prefix_walks_the_time_order() -> None:
    """A delivery id prefix with one hex digit or none matches 1/16 of the ids or more: the
    time order leads (its filter checks the prefix); two digits or more read the range."""
    for prefix, name in (
        ("dlv_", "deliveries_log"),
        ("dlv_a", "deliveries_log"),
        ("dlv_ab", "deliveries_log_by_id_prefix"),
        ("dlv_" + "a" * 28, "deliveries_log_by_id_prefix"),
    ):
        assert query_name(LogQuery(tenant_id="ten_a", delivery_id_prefix=prefix)) == name
    q = LogQuery(tenant_id="ten_a", delivery_id_prefix="dlv_a", subscription_id="sub_" + "0" * 24)
    assert query_name(q) == "deliveries_log_by_subscription"


def test_the_state_filter_reads_its_own_index_only_for_the_rare_states() -> None:
    for state in LEDGER_STATES:
        name = query_name(LogQuery(tenant_id="ten_a", state=state))
        assert name == ("deliveries_log_by_state" if state in RARE_STATES else "deliveries_log")
    assert "ENDPOINT_ACCEPTED" not in RARE_STATES and "PLANNED" not in RARE_STATES
    (sql,) = [m for n, _, m in migration_files("hookproof.engine") if n == 1000]
    predicate = sql[sql.index("WHERE state IN (") :].split(";")[0]
    assert set(re.findall(r"'([A-Z_]+)'", predicate)) == RARE_STATES


async def test_an_attempt_records_what_came_back_bounded_and_redacted(
    engine: Engine, base: str, subscriber: Subscriber
) -> None:
    acme = await engine.tenants.create("acme")
    sid = await active_subscription(
        engine, acme.tenant_id, subscriber.url("echo-a"), retryPolicy={"maxAttempts": 1}
    )
    result = await publish(engine, acme.tenant_id, "evt-echo")
    await dispatch_all(engine)
    did = result.deliveries[0]["deliveryId"]
    sent = subscriber.deliveries("echo-a")[-1].headers
    signature = sent["Signature"]
    async with aiohttp.ClientSession() as http:
        status, view = await Client(http, base, acme.token).call("GET", f"/v1/deliveries/{did}")
    assert status == 200 and view["state"] == "DEAD_LETTER" and view["subscriptionId"] == sid
    response = view["attempts"][0]["response"]
    headers = dict(response["headers"])
    assert headers["x-trace"] == "trace-7"
    assert headers["set-cookie"] == "[redacted]"
    assert "s3cr3t-cookie" not in str(view)
    # the endpoint echoed the request: kept, but not the signature the engine sent
    assert response["excerpt"].startswith("refused; you sent {")
    assert "Webhook-Id" in response["excerpt"] and "evt-echo" in response["excerpt"]
    assert signature not in str(view) and "[redacted]" in response["excerpt"]
    assert response["bodyBytes"] > len(response["excerpt"]) - 100
    assert response["excerptTruncated"] is (response["bodyBytes"] > 2048)
