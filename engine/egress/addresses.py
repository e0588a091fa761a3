"""Pure classification of IP addresses for egress (DESIGN.md section 5).

``classify(ip)`` returns a stable reason string when an address must never be a delivery
target, or ``None`` for a public unicast address. It is an explicit IANA special-purpose deny
list and deliberately does not use :mod:`ipaddress`'s ``is_global``/``is_private`` (their
answers differ between Python versions and miss ranges such as 100.64/10, 3fff::/20, NAT64
and 6to4). IPv4-mapped IPv6 addresses are unwrapped and judged as IPv4; IPv6 outside global
unicast (2000::/3) is refused as well.
"""

from __future__ import annotations

import ipaddress
from typing import Final

__all__ = ["DENY_V4", "DENY_V6", "IPAddress", "classify", "format_ip", "parse_ip"]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_N4 = ipaddress.IPv4Network
_N6 = ipaddress.IPv6Network

#: IPv4 special-purpose ranges (IANA registry, RFC 6890 and successors), most specific first.
DENY_V4: Final[tuple[tuple[ipaddress.IPv4Network, str], ...]] = (
    (_N4("255.255.255.255/32"), "ipv4_broadcast"),
    (_N4("0.0.0.0/8"), "ipv4_this_network"),
    (_N4("10.0.0.0/8"), "ipv4_private"),
    (_N4("100.64.0.0/10"), "ipv4_shared_cgnat"),
    (_N4("127.0.0.0/8"), "ipv4_loopback"),
    (_N4("169.254.0.0/16"), "ipv4_link_local"),
    (_N4("172.16.0.0/12"), "ipv4_private"),
    (_N4("192.0.0.0/24"), "ipv4_ietf_protocol"),
    (_N4("192.0.2.0/24"), "ipv4_documentation"),
    (_N4("192.88.99.0/24"), "ipv4_6to4_relay"),
    (_N4("192.168.0.0/16"), "ipv4_private"),
    (_N4("198.18.0.0/15"), "ipv4_benchmarking"),
    (_N4("198.51.100.0/24"), "ipv4_documentation"),
    (_N4("203.0.113.0/24"), "ipv4_documentation"),
    (_N4("224.0.0.0/4"), "ipv4_multicast"),
    (_N4("240.0.0.0/4"), "ipv4_reserved"),
)

#: IPv6 special-purpose ranges. ``::ffff:0:0/96`` is handled by unwrapping, not listed here.
DENY_V6: Final[tuple[tuple[ipaddress.IPv6Network, str], ...]] = (
    (_N6("::/128"), "ipv6_unspecified"),
    (_N6("::1/128"), "ipv6_loopback"),
    (_N6("::/96"), "ipv6_ipv4_compatible"),
    (_N6("64:ff9b::/96"), "ipv6_nat64"),
    (_N6("64:ff9b:1::/48"), "ipv6_nat64_local"),
    (_N6("100::/64"), "ipv6_discard"),
    (_N6("2001::/32"), "ipv6_teredo"),
    (_N6("2001:db8::/32"), "ipv6_documentation"),
    (_N6("2001::/23"), "ipv6_ietf_protocol"),
    (_N6("2002::/16"), "ipv6_6to4"),
    (_N6("3fff::/20"), "ipv6_documentation"),
    (_N6("5f00::/16"), "ipv6_srv6_sid"),
    (_N6("fc00::/7"), "ipv6_unique_local"),
    (_N6("fe80::/10"), "ipv6_link_local"),
    (_N6("fec0::/10"), "ipv6_site_local"),
    (_N6("ff00::/8"), "ipv6_multicast"),
)

_GLOBAL_UNICAST_V6: Final = _N6("2000::/3")


def parse_ip(text: str) -> IPAddress:
    """Parse a textual IP address strictly (no zone ids, no legacy IPv4 forms).

    Raises :class:`ValueError` for anything else.
    """
    if "%" in text:
        raise ValueError(f"scoped address not accepted: {text!r}")
    return ipaddress.ip_address(text)


def format_ip(addr: IPAddress) -> str:
    """Canonical, Python-version-independent text of an address (RFC 5952 for IPv6)."""
    if isinstance(addr, ipaddress.IPv6Address):
        mapped = addr.ipv4_mapped
        if mapped is not None:
            return f"::ffff:{mapped}"
        return ipaddress.IPv6Address(int(addr)).compressed
    return str(addr)


def classify(ip: IPAddress | str) -> str | None:
    """Return why ``ip`` is not an acceptable egress target, or ``None`` if it is public.

    Accepts an address object or its text; text that is not an IP address raises
    :class:`ValueError`.
    """
    addr = parse_ip(ip) if isinstance(ip, str) else ip
    if isinstance(addr, ipaddress.IPv6Address):
        if addr.scope_id:
            return "ipv6_scoped"
        mapped = addr.ipv4_mapped
        if mapped is not None:
            inner = _classify_v4(mapped)
            return None if inner is None else f"ipv4_mapped:{inner}"
        return _classify_v6(addr)
    return _classify_v4(addr)


def _classify_v4(addr: ipaddress.IPv4Address) -> str | None:
    for net, reason in DENY_V4:
        if addr in net:
            return reason
    return None


def _classify_v6(addr: ipaddress.IPv6Address) -> str | None:
    for net, reason in DENY_V6:
        if addr in net:
            return reason
    if addr not in _GLOBAL_UNICAST_V6:
        return "ipv6_not_global_unicast"
    return None
