"""Inside a network namespace with only loopback: the transport never connects to a private
address (10.0.0.5 made local) and does connect to an emulated public one (93.184.215.14)
without any allowance. Skipped where ``unshare -n`` is unavailable."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SETUP = (
    "ip link set lo up && ip addr add 10.0.0.5/32 dev lo && "
    'ip addr add 93.184.215.14/32 dev lo && exec "$0" -m tests.egress.netns_probe'
)


def _netns_available() -> str | None:
    if not sys.platform.startswith("linux"):
        return "network namespaces need Linux"
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return "unshare or ip not installed"
    if os.geteuid() != 0:
        return "unshare -n needs root here"
    probe = subprocess.run(
        ["unshare", "-n", "sh", "-c", "ip link set lo up"], capture_output=True, timeout=10
    )
    if probe.returncode != 0:
        return f"unshare -n refused: {probe.stderr.decode(errors='replace').strip()}"
    return None


@pytest.fixture(scope="module")
def netns_report() -> dict:
    reason = _netns_available()
    if reason:
        pytest.skip(reason)
    env = {**os.environ, "HOOKPROOF_TEST_IN_NETNS": "1"}
    proc = subprocess.run(
        ["unshare", "-n", "sh", "-c", SETUP, sys.executable],
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=90,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-4000:]
    lines = [ln for ln in proc.stdout.decode().splitlines() if ln.startswith("{")]
    assert lines, proc.stdout.decode()[-4000:]
    return json.loads(lines[-1])


def test_public_address_reached_without_allowance(netns_report):
    cases = netns_report["cases"]
    for name in ("public_name", "public_literal", "rebind_before"):
        case = cases[name]
        assert case["code"] is None and case["status"] == 200, (name, case)
        assert case["peer"] == "93.184.215.14" and case["body"] == "public"
        assert case["allowance_used"] is False
    assert netns_report["public_connections"] == 3


def test_private_address_never_connected(netns_report):
    cases = netns_report["cases"]
    for name in ("private_name", "private_literal", "private_mapped", "mixed_name", "rebind_after"):
        assert cases[name]["code"] == "egress_refused_address", (name, cases[name])
        assert cases[name]["outcome"] == "refused"
    assert netns_report["private_connections"] == 0
    hosts = {host for host, _port in netns_report["transport_connects"]}
    assert netns_report["pool_after"]["private_connections"] == 0
    assert hosts == {"93.184.215.14"}


def test_private_listener_was_reachable_all_along(netns_report):
    assert netns_report["control_response"].startswith("HTTP/1.1 200")
    assert netns_report["private_connections_after_control"] == 1


def test_pooled_connections_open_when_the_name_is_rebound_to_a_private_address(netns_report):
    warm = netns_report["pool_warm"]
    assert warm["ok"] and warm["requests"] == 8
    assert 1 <= warm["connections"] <= 4 and warm["open"] >= 1  # reused, still open
    rebound = netns_report["cases"]["pool_rebound"]
    assert rebound["code"] == "egress_refused_address" and rebound["outcome"] == "refused"
    assert rebound["peer"] is None
    after = netns_report["pool_after"]
    assert after["private_connections"] == 0  # never connected there
    assert after["public_requests"] == 8  # nothing written on a pooled connection either
    assert after["public_connections"] == warm["connections"]
