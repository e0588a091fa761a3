"""The explicit special-purpose deny list, range by range and by property."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hookproof.engine.egress import DENY_V4, DENY_V6, classify, parse_ip

PUBLIC = [
    "8.8.8.8",
    "1.1.1.1",
    "93.184.215.14",
    "100.63.255.255",
    "100.128.0.0",
    "172.15.255.255",
    "172.32.0.0",
    "192.0.1.1",
    "192.167.255.255",
    "192.169.0.0",
    "198.17.255.255",
    "198.20.0.0",
    "223.255.255.255",
    "2606:4700::1111",
    "2a00:1450:4001::200e",
    "2001:200::1",
    "2003::1",
    "3ffe:ffff::1",
    "::ffff:8.8.8.8",
]

DENIED = {
    "0.0.0.0": "ipv4_this_network",
    "0.255.255.255": "ipv4_this_network",
    "10.0.0.0": "ipv4_private",
    "10.255.255.255": "ipv4_private",
    "100.64.0.0": "ipv4_shared_cgnat",
    "100.127.255.255": "ipv4_shared_cgnat",
    "127.0.0.1": "ipv4_loopback",
    "127.255.255.254": "ipv4_loopback",
    "169.254.169.254": "ipv4_link_local",
    "172.16.0.0": "ipv4_private",
    "172.31.255.255": "ipv4_private",
    "192.0.0.9": "ipv4_ietf_protocol",
    "192.0.0.170": "ipv4_ietf_protocol",
    "192.0.2.1": "ipv4_documentation",
    "192.88.99.1": "ipv4_6to4_relay",
    "192.168.0.1": "ipv4_private",
    "198.18.0.0": "ipv4_benchmarking",
    "198.19.255.255": "ipv4_benchmarking",
    "198.51.100.7": "ipv4_documentation",
    "203.0.113.200": "ipv4_documentation",
    "224.0.0.1": "ipv4_multicast",
    "239.255.255.250": "ipv4_multicast",
    "240.0.0.1": "ipv4_reserved",
    "255.255.255.254": "ipv4_reserved",
    "255.255.255.255": "ipv4_broadcast",
    "::": "ipv6_unspecified",
    "::1": "ipv6_loopback",
    "::10.0.0.1": "ipv6_ipv4_compatible",
    "::ffff:10.0.0.1": "ipv4_mapped:ipv4_private",
    "::ffff:127.0.0.1": "ipv4_mapped:ipv4_loopback",
    "::ffff:100.64.0.1": "ipv4_mapped:ipv4_shared_cgnat",
    "::ffff:169.254.169.254": "ipv4_mapped:ipv4_link_local",
    "64:ff9b::a00:1": "ipv6_nat64",
    "64:ff9b::808:808": "ipv6_nat64",
    "64:ff9b:1::1": "ipv6_nat64_local",
    "100::1": "ipv6_discard",
    "2001::1": "ipv6_teredo",
    "2001:0:4136:e378:8000:63bf:3fff:fdd2": "ipv6_teredo",
    "2001:2::1": "ipv6_ietf_protocol",
    "2001:10::1": "ipv6_ietf_protocol",
    "2001:1ff:ffff::1": "ipv6_ietf_protocol",
    "2001:db8::1": "ipv6_documentation",
    "2002:a00:1::": "ipv6_6to4",
    "2002:808:808::1": "ipv6_6to4",
    "3fff::1": "ipv6_documentation",
    "3fff:fff:ffff::1": "ipv6_documentation",
    "5f00::1": "ipv6_srv6_sid",
    "fc00::1": "ipv6_unique_local",
    "fd00:ec2::254": "ipv6_unique_local",
    "fe80::1": "ipv6_link_local",
    "febf::1": "ipv6_link_local",
    "fec0::1": "ipv6_site_local",
    "ff02::1": "ipv6_multicast",
    "4000::1": "ipv6_not_global_unicast",
    "1::1": "ipv6_not_global_unicast",
}


@pytest.mark.parametrize("address", PUBLIC)
def test_public_unicast_is_allowed(address):
    assert classify(address) is None
    assert classify(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize(("address", "reason"), sorted(DENIED.items()))
def test_special_purpose_is_denied(address, reason):
    assert classify(address) == reason


@pytest.mark.parametrize("text", ["127.1", "0x7f000001", "2130706433", "fe80::1%eth0", "x", ""])
def test_non_addresses_raise_value_error(text):
    with pytest.raises(ValueError):
        classify(text)
    with pytest.raises(ValueError):
        parse_ip(text)


def test_every_listed_network_is_denied_at_both_ends():
    for net, reason in (*DENY_V4, *DENY_V6):
        assert classify(net.network_address) is not None, (net, reason)
        assert classify(net.broadcast_address) is not None, (net, reason)


def test_python_is_global_is_not_enough():
    """The ranges the design calls out, which ipaddress on 3.11 gets wrong or omits."""
    for text in ("::ffff:100.64.0.1", "3fff::1", "fec0::1", "64:ff9b::a00:1", "2002:a00:1::"):
        assert classify(text) is not None, text


@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_ipv4_mapped_is_judged_as_ipv4(value):
    v4 = ipaddress.IPv4Address(value)
    mapped = ipaddress.IPv6Address((0xFFFF << 32) | value)
    inner = classify(v4)
    outer = classify(mapped)
    assert (inner is None) == (outer is None)
    if inner is not None:
        assert outer == f"ipv4_mapped:{inner}"


@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_ipv4_allowed_implies_python_global(value):
    addr = ipaddress.IPv4Address(value)
    if classify(addr) is None:
        assert addr.is_global and not addr.is_multicast


@given(st.integers(min_value=0, max_value=2**128 - 1))
def test_ipv6_allowed_only_in_global_unicast(value):
    addr = ipaddress.IPv6Address(value)
    if classify(addr) is None:
        assert addr in ipaddress.IPv6Network("2000::/3") or addr.ipv4_mapped is not None
        assert addr.is_global or addr.ipv4_mapped is not None
