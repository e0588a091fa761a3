"""``HOOKPROOF_EGRESS_PROXY`` is ``http://host:port`` and nothing else; the CONNECT names an
address, never a host name (pure)."""

from __future__ import annotations

import ipaddress

import pytest

from hookproof.config import Settings
from hookproof.engine.egress.proxy import connect_line, parse_proxy
from hookproof.errors import ValidationError


@pytest.mark.parametrize("value", ["http://127.0.0.1:3128", "http://proxy.internal:8080/"])
def test_accepted(value: str) -> None:
    assert Settings.from_env({"HOOKPROOF_EGRESS_PROXY": value}).egress_proxy == value
    assert parse_proxy(value).port in (3128, 8080)


@pytest.mark.parametrize(
    "value",
    [
        "https://127.0.0.1:3128",
        "127.0.0.1:3128",
        "http://127.0.0.1",
        "http://user:pw@127.0.0.1:3128",
        "http://127.0.0.1:3128/path",
        "http://127.0.0.1:3128?x=1",
        "http://127.0.0.1:99999",
        "socks5://127.0.0.1:1080",
    ],
)
def test_refused(value: str) -> None:
    with pytest.raises(ValidationError) as err:
        Settings.from_env({"HOOKPROOF_EGRESS_PROXY": value})
    assert err.value.field == "HOOKPROOF_EGRESS_PROXY"


def test_unset_means_direct() -> None:
    assert Settings.from_env({}).egress_proxy is None


def test_connect_names_an_address() -> None:
    assert connect_line(ipaddress.ip_address("192.0.2.7"), 443) == (
        b"CONNECT 192.0.2.7:443 HTTP/1.1\r\nHost: 192.0.2.7:443\r\n\r\n"
    )
    assert connect_line(ipaddress.ip_address("2001:db8::1"), 8443).startswith(
        b"CONNECT [2001:db8::1]:8443 HTTP/1.1\r\n"
    )
