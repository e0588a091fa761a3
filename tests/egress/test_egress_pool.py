"""The pinned pool over real HTTPS (trustme) and a real DNS server (dnslib): connections are
reused, only to a peer the current request vetted, and never past their idle, age or request
bounds. Connections are counted at the subscriber and at the socket layer."""

from __future__ import annotations

import asyncio
import socket

import pytest

from hookproof.engine.egress import Outcome

from .conftest import respond

BODY = b'{"type":"t","eventId":"e1"}'


async def test_connection_reused_and_evidence_is_the_carrying_connection(
    dns, make_server, make_transport, socket_guard
):
    server = await make_server(keep_alive=True)
    dns.records["hooks.test"] = ["127.0.0.1"]
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    url = f"https://hooks.test:{server.port}/in"
    results = [await transport.post(url, BODY) for _ in range(5)]
    assert all(r.ok for r in results)
    assert server.connections == 1 and socket_guard.connects_to(server.port) == 1
    assert [r.connection for r in server.requests] == [1] * 5
    # every request was vetted (the DNS server answered each time: TTL 0, nothing cached)
    assert sum(1 for q in dns.queries if q[:2] == ("hooks.test", "A")) == 5
    first = results[0]
    assert first.certificate is not None
    for r in results:
        assert (r.peer_address, r.peer_port) == ("127.0.0.1", server.port)
        assert r.certificate == first.certificate  # described once, for the connection
    assert transport.adapter.connector is not None
    assert (transport.adapter.connector.opened, transport.adapter.connector.reused) == (1, 4)


async def test_concurrent_requests_share_a_bounded_set_of_connections(
    dns, make_server, make_transport
):
    server = await make_server(keep_alive=True)
    dns.records["hooks.test"] = ["127.0.0.1"]
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    url = f"https://hooks.test:{server.port}/"
    for _ in range(3):
        results = await asyncio.gather(*(transport.post(url, BODY) for _ in range(8)))
        assert all(r.ok for r in results)
    assert len(server.requests) == 24 and server.connections <= 8


async def test_other_port_or_host_gets_its_own_connection(dns, make_server, make_transport, pki):
    a = await make_server(keep_alive=True)
    b = await make_server(keep_alive=True)
    dns.records["hooks.test"] = ["127.0.0.1"]
    dns.records["hooks-b.test"] = ["127.0.0.1"]
    transport = make_transport(allow=(("127.0.0.1", a.port), ("127.0.0.1", b.port)))
    for url in (f"https://hooks.test:{a.port}/", f"https://hooks-b.test:{a.port}/"):
        assert (await transport.post(url, BODY)).ok
    assert (await transport.post(f"https://hooks.test:{b.port}/", BODY)).ok
    assert a.connections == 2 and b.connections == 1  # per host and per port


def _two_addresses_one_port() -> int:
    """A port free on both 127.0.0.1 and 127.0.0.2."""
    for _ in range(20):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
            try:
                with socket.socket() as t:
                    t.bind(("127.0.0.2", port))
            except OSError:
                continue
        return port
    pytest.skip("no port free on both loopback addresses")


async def test_pooled_connection_to_an_address_no_longer_vetted_is_closed_never_used(
    dns, make_server, make_transport, socket_guard
):
    port = _two_addresses_one_port()
    old = await make_server(
        respond(200, b"old", {"Connection": "keep-alive"}), port=port, keep_alive=True
    )
    new = await make_server(
        respond(200, b"new", {"Connection": "keep-alive"}),
        host="127.0.0.2",
        port=port,
        keep_alive=True,
    )
    dns.records["hooks.test"] = ["127.0.0.1"]
    transport = make_transport(allow=(("127.0.0.1", port), ("127.0.0.2", port)))
    url = f"https://hooks.test:{port}/"
    await asyncio.gather(*(transport.post(url, BODY) for _ in range(3)))
    pooled = old.connections
    assert pooled >= 1 and len(old.requests) == 3

    dns.records["hooks.test"] = ["127.0.0.2"]  # another allowed address: a new connection
    moved = await transport.post(url, BODY, pin=["127.0.0.1"])
    assert moved.ok and moved.body == b"new" and moved.peer_address == "127.0.0.2"
    assert moved.drift is not None and moved.drift.added == {"127.0.0.2"}
    assert len(old.requests) == 3 and new.connections == 1
    await asyncio.sleep(0.05)
    assert old.open_connections == 0  # the pooled ones were closed, not kept aside

    dns.records["hooks.test"] = ["10.0.0.1"]  # a denied address: refused before any socket
    connects = len(socket_guard.attempts)
    refused = await transport.post(url, BODY, pin=["127.0.0.1"])
    assert refused.outcome is Outcome.REFUSED and refused.code == "egress_refused_address"
    assert not refused.request_started and refused.peer_address is None
    assert len(socket_guard.attempts) == connects
    assert len(new.requests) == 1 and len(old.requests) == 3


@pytest.mark.parametrize(
    ("limits", "pause", "expected"),
    [
        ({"pool_max_requests": 2}, 0.0, 3),  # 5 requests: 2 + 2 + 1
        ({"pool_idle_s": 0.2}, 0.3, 5),  # idle past the bound before every request
        ({"pool_max_age_s": 0.25}, 0.3, 5),  # older than its age bound before every request
    ],
    ids=["requests", "idle", "age"],
)
async def test_connection_past_its_bound_is_not_used(
    limits, pause, expected, dns, make_server, make_transport
):
    server = await make_server(keep_alive=True)
    dns.records["hooks.test"] = ["127.0.0.1"]
    transport = make_transport(allow=(("127.0.0.1", server.port),), **limits)
    url = f"https://hooks.test:{server.port}/"
    for _ in range(5):
        assert (await transport.post(url, BODY)).ok
        if pause:
            await asyncio.sleep(pause)
    per_connection: dict[int, int] = {}
    for r in server.requests:
        per_connection[r.connection] = per_connection.get(r.connection, 0) + 1
    assert server.connections == expected
    if "pool_max_requests" in limits:
        assert sorted(per_connection.values()) == [1, 2, 2]


async def test_dns_answer_cached_at_most_its_ttl(dns, make_server, make_transport):
    """TTL 0 (the test server's answers): nothing is cached, every request asks again."""
    server = await make_server(keep_alive=True)
    dns.records["hooks.test"] = ["127.0.0.1"]
    transport = make_transport(allow=(("127.0.0.1", server.port),), dns_cache_s=30)
    url = f"https://hooks.test:{server.port}/"
    for _ in range(3):
        assert (await transport.post(url, BODY)).ok
    assert sum(1 for q in dns.queries if q[:2] == ("hooks.test", "A")) == 3


async def test_dns_answer_cached_at_most_the_configured_bound(dns, make_server, make_transport):
    server = await make_server(keep_alive=True)
    dns.ttl = 3600
    dns.records["hooks-b.test"] = ["127.0.0.1"]
    transport = make_transport(allow=(("127.0.0.1", server.port),), dns_cache_s=0.3)
    url = f"https://hooks-b.test:{server.port}/"

    def asked() -> int:
        return sum(1 for q in dns.queries if q[:2] == ("hooks-b.test", "A"))

    assert (await transport.post(url, BODY)).ok and (await transport.post(url, BODY)).ok
    assert asked() == 1
    await asyncio.sleep(0.4)
    dns.records["hooks-b.test"] = ["10.0.0.1"]
    refused = await transport.post(url, BODY)  # the cache expired: asked again, vetted again
    assert asked() == 2 and refused.code == "egress_refused_address"
    assert len(server.requests) == 2


async def test_allowance_logged_per_connection_and_flagged_per_result(
    dns, make_server, make_transport
):
    import structlog

    server = await make_server(keep_alive=True)
    dns.records["hooks.test"] = ["127.0.0.1"]
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    url = f"https://hooks.test:{server.port}/"
    with structlog.testing.capture_logs() as logs:
        results = [await transport.post(url, BODY) for _ in range(3)]
    assert all(r.ok and r.allowance_used for r in results)
    used = [e for e in logs if e["event"] == "egress_allowance_used"]
    assert len(used) == server.connections == 1
    assert used[0]["log_level"] == "warning" and used[0]["port"] == server.port


async def test_idle_connections_bounded_across_origins(dns, make_server, make_transport):
    server = await make_server(keep_alive=True)
    for name in ("hooks.test", "hooks-b.test", "public.test"):
        dns.records[name] = ["127.0.0.1"]
    transport = make_transport(
        allow=(("127.0.0.1", server.port),), pool_max_idle=2, pool_keep_recent_s=0
    )
    for name in ("hooks.test", "hooks-b.test", "public.test"):
        assert (await transport.post(f"https://{name}:{server.port}/", BODY)).ok
    await asyncio.sleep(0.05)
    assert server.connections == 3 and server.open_connections == 2  # the oldest closed
    assert (await transport.post(f"https://public.test:{server.port}/", BODY)).ok  # pooled
    assert (await transport.post(f"https://hooks.test:{server.port}/", BODY)).ok  # new again
    assert server.connections == 4


async def test_recently_used_idle_connections_are_kept_over_the_bound(
    dns, make_server, make_transport
):
    """Sites cycling through one more connection than the bound: closing the longest idle
    closed each one just before its next use (no reuse at all); now the one just released
    goes while the others were used within ``keep_recent_s``, and the others are reused."""
    server = await make_server(keep_alive=True)
    names = ("hooks.test", "hooks-b.test", "public.test")
    for name in names:
        dns.records[name] = ["127.0.0.1"]
    transport = make_transport(allow=(("127.0.0.1", server.port),), pool_max_idle=2)
    for _ in range(3):  # three rounds over three sites with room for two
        for name in names:
            assert (await transport.post(f"https://{name}:{server.port}/", BODY)).ok
    await asyncio.sleep(0.05)
    assert server.open_connections == 2
    assert server.connections == 5  # 3 opened, then only public.test each round (LRU: 9)


async def test_connections_of_one_off_sites_are_kept_idle_within_their_own_bound(
    dns, make_server, make_transport
):
    """A fan-out to many sites that each get one request: at most ``max_idle_first`` of those
    connections stay idle (the others are closed after their response); a site that sends
    again within ``idle_s`` is recurring and its connection is pooled as before."""
    import dataclasses

    server = await make_server(keep_alive=True)
    names = ("hooks.test", "hooks-b.test", "public.test")
    for name in names:
        dns.records[name] = ["127.0.0.1"]
    transport = make_transport(allow=(("127.0.0.1", server.port),), pool_max_idle=10)
    adapter = transport.adapter
    adapter.limits = dataclasses.replace(adapter.limits, max_idle_first=1)
    for name in names:  # first requests: room for one idle connection
        assert (await transport.post(f"https://{name}:{server.port}/", BODY)).ok
    await asyncio.sleep(0.05)
    assert (server.connections, server.open_connections) == (3, 1)
    for _ in range(3):  # hooks-b.test again: recurring, its new connection is pooled
        assert (await transport.post(f"https://hooks-b.test:{server.port}/", BODY)).ok
    await asyncio.sleep(0.05)
    assert (server.connections, server.open_connections) == (4, 2)
    assert (await transport.post(f"https://hooks.test:{server.port}/", BODY)).ok  # kept idle
    assert server.connections == 4


def test_pool_site_is_recurring_rule() -> None:
    from hookproof.engine.egress.pool import PoolLimits, site_is_recurring

    limits = PoolLimits(idle_s=15.0, max_idle=10)
    assert not site_is_recurring(None, 100.0, 1, limits)  # the first request to the origin
    assert site_is_recurring(90.0, 105.0, 20, limits)
    assert not site_is_recurring(90.0, 105.1, 1, limits)  # its connection would have idled out
    # a sweep over more than twice max_idle sites: the pool could not keep half of them
    assert not site_is_recurring(90.0, 105.0, 21, limits)
    assert PoolLimits().max_idle_first < PoolLimits().max_idle


def test_pool_over_idle_bound_rule() -> None:
    from hookproof.engine.egress.pool import PoolLimits, over_idle_bound

    limits = PoolLimits(keep_recent_s=5.0)
    assert over_idle_bound(100.0, 104.9, limits) == "released"
    assert over_idle_bound(100.0, 105.0, limits) == "longest_idle"
    assert over_idle_bound(100.0, 100.1, PoolLimits(keep_recent_s=0)) == "longest_idle"


def test_pool_bounds_from_the_environment() -> None:
    from hookproof.config import Settings
    from hookproof.engine.egress import EgressPolicy

    settings = Settings.from_env(
        {
            "HOOKPROOF_POOL_IDLE_S": "5",
            "HOOKPROOF_POOL_MAX_AGE_S": "20",
            "HOOKPROOF_POOL_MAX_REQUESTS": "50",
            "HOOKPROOF_POOL_MAX_IDLE": "7",
            "HOOKPROOF_DNS_CACHE_S": "10",
        }
    )
    limits = EgressPolicy.from_settings(settings).pool_limits
    assert (limits.idle_s, limits.max_age_s, limits.max_requests, limits.max_idle) == (5, 20, 50, 7)
    assert EgressPolicy.from_settings(settings).dns_cache_s == 10
    defaults = EgressPolicy.from_settings(Settings.from_env({})).pool_limits
    assert (defaults.idle_s, defaults.max_age_s, defaults.max_requests) == (15, 60, 1000)
