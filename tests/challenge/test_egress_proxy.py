"""``HOOKPROOF_EGRESS_PROXY`` (DESIGN.md section 14) through a real tinyproxy from Debian's
packages, started here on a loopback port with its own configuration and log: challenges and
deliveries leave as ``CONNECT <vetted address>:<port>`` (never a host name), TLS end to end
with verification on the host name; a host that resolves to a denied address is refused before
the proxy is asked anything; drift still suspends; a proxy that fails is
``egress_proxy_failed``. ``.ci/run`` installs tinyproxy and sets
``HOOKPROOF_REQUIRE_TINYPROXY``: there the tests must run, elsewhere they skip and say why."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from .auth_support import dispatch, publish
from .conftest import Harness, MakeHarness, SocketGuard

TINYPROXY = shutil.which("tinyproxy")
_REQUEST = re.compile(r"Request \(file descriptor \d+\): (.*)$")


@dataclass
class Tinyproxy:
    port: int
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def requests(self) -> list[str]:
        """Every request line the proxy logged."""
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return [m[1].strip() for line in text.splitlines() if (m := _REQUEST.search(line))]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _start(tmp_path: Path, extra: str = "") -> AsyncIterator[Tinyproxy]:
    if TINYPROXY is None:
        reason = "tinyproxy is not installed (Debian package tinyproxy; .ci/run installs it)"
        if os.environ.get("HOOKPROOF_REQUIRE_TINYPROXY"):
            pytest.fail(reason + " and HOOKPROOF_REQUIRE_TINYPROXY is set")
        pytest.skip(reason)
    port = _free_port()
    folder = tmp_path / f"tinyproxy-{port}"
    folder.mkdir()
    log = folder / "tinyproxy.log"
    conf = folder / "tinyproxy.conf"
    conf.write_text(
        f'Port {port}\nListen 127.0.0.1\nTimeout 30\nLogFile "{log}"\nLogLevel Info\n'
        f"MaxClients 50\nAllow 127.0.0.1\nDisableViaHeader Yes\n{extra}"
    )
    proc = await asyncio.create_subprocess_exec(
        TINYPROXY, "-d", "-c", str(conf), stdout=asyncio.subprocess.DEVNULL
    )
    try:
        for _ in range(500):  # until it listens
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.close()
                await writer.wait_closed()
                break
            except OSError:
                await asyncio.sleep(0.01)
        yield Tinyproxy(port, log)
    finally:
        proc.terminate()
        await proc.wait()


@pytest.fixture
async def tinyproxy(tmp_path: Path) -> AsyncIterator[Tinyproxy]:
    async for proxy in _start(tmp_path):
        yield proxy


@pytest.fixture
async def strict_tinyproxy(tmp_path: Path) -> AsyncIterator[Tinyproxy]:
    """A proxy that tunnels to port 443 only: it refuses the test endpoint's CONNECT."""
    async for proxy in _start(tmp_path, "ConnectPort 443\n"):
        yield proxy


async def _active(h: Harness) -> dict[str, object]:
    view = await h.register()
    h.endpoint.configure(h.subscriber(view))
    await h.engine.drain()
    assert (await h.get(str(view["id"])))["state"] == "ACTIVE"
    return view


async def test_challenge_and_deliveries_go_through_the_proxy_as_connect_to_addresses(
    make_harness: MakeHarness, tinyproxy: Tinyproxy, socket_guard: SocketGuard
) -> None:
    h = await make_harness(egress_proxy=tinyproxy.url)
    view = await _active(h)
    planned = await publish(h, "proxied", 2)
    assert await dispatch(h) == 2
    port = h.endpoint.port
    lines = tinyproxy.requests()
    assert lines and set(lines) == {f"CONNECT 127.0.0.1:{port} HTTP/1.1"}
    assert not any("hooks.test" in line for line in lines)
    # the engine itself connected to the proxy only, never to the endpoint
    assert socket_guard.connects_to(port) == 0
    # TLS end to end: the endpoint saw the challenge and both deliveries, verified
    assert len(h.endpoint.requests) == 3
    assert [status for status, _ in h.endpoint.answers] == [200] * 3
    for d in planned:
        seen = await h.engine.services.reader.delivery(str(view["tenantId"]), d["deliveryId"])
        assert seen["state"] == "ENDPOINT_ACCEPTED"
        [attempt] = seen["attempts"]
        assert attempt["proxy"] == f"127.0.0.1:{tinyproxy.port}"
        assert attempt["peerAddress"] == "127.0.0.1"  # the vetted address the tunnel reached
    # the challenge's event records the proxy and the vetted peer, as the attempts do
    [passed] = await h.events(str(view["id"]), "subscription.challenge_passed")
    assert passed["proxy"] == f"127.0.0.1:{tinyproxy.port}"
    assert passed["peer_address"] == "127.0.0.1" and passed["spki_sha256"]


async def test_a_denied_answer_is_refused_before_the_proxy_is_asked(
    make_harness: MakeHarness, tinyproxy: Tinyproxy, socket_guard: SocketGuard
) -> None:
    probes = socket_guard.connects_to(tinyproxy.port)  # the fixture's wait for it to listen
    h = await make_harness(egress_proxy=tinyproxy.url, answers=("127.0.0.1",))
    h.dns.records["hooks.test"] = ["10.11.12.13"]
    view = await h.register()
    await h.engine.drain()
    [failed] = await h.events(str(view["id"]), "subscription.challenge_failed")
    assert failed["reason"] == "endpoint_ip_forbidden"  # the tenant's view of the refusal
    assert tinyproxy.requests() == []
    assert socket_guard.connects_to(tinyproxy.port) == probes
    assert not any(host == "10.11.12.13" for host, _ in socket_guard.attempts)


async def test_drift_still_suspends_through_the_proxy(
    make_harness: MakeHarness, tinyproxy: Tinyproxy, socket_guard: SocketGuard
) -> None:
    h = await make_harness(egress_proxy=tinyproxy.url)
    view = await _active(h)
    sid = str(view["id"])
    asked = len(tinyproxy.requests())
    h.dns.records["hooks.test"] = ["127.0.0.1", "10.0.0.1"]
    await publish(h, "drift", 1)
    await dispatch(h)
    state = await h.get(sid)
    assert state["state"] == "SUSPENDED" and state["lastReason"] == "dns_rebinding_denied"
    assert len(tinyproxy.requests()) == asked  # nothing was asked of the proxy
    assert len(h.endpoint.requests) == 1  # the challenge only


async def test_a_proxy_that_refuses_or_is_down_is_its_own_failure(
    make_harness: MakeHarness, strict_tinyproxy: Tinyproxy
) -> None:
    h = await make_harness(egress_proxy=strict_tinyproxy.url)
    view = await h.register()
    await h.engine.drain()
    [failed] = await h.events(str(view["id"]), "subscription.challenge_failed")
    assert failed["reason"] == "egress_proxy_failed"
    assert failed["proxy"] == f"127.0.0.1:{strict_tinyproxy.port}"  # the proxy, named
    assert "peer_address" not in failed  # no tunnel: no peer was reached
    assert strict_tinyproxy.requests() == [f"CONNECT 127.0.0.1:{h.endpoint.port} HTTP/1.1"]
    assert h.endpoint.requests == []

    down_proxy = f"127.0.0.1:{_free_port()}"
    down = await make_harness(egress_proxy=f"http://{down_proxy}")
    view = await down.register()
    await down.engine.drain()
    [failed] = await down.events(str(view["id"]), "subscription.challenge_failed")
    assert failed["reason"] == "egress_proxy_failed"
    assert failed["proxy"] == down_proxy
    assert down.endpoint.requests == []
