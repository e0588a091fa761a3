"""A relay subscription's endpoint: ``http://`` on loopback only, one canonical text."""

from __future__ import annotations

import pytest

from hookproof.engine.destinations.relay.endpoint import is_relay_endpoint, normalise_relay_endpoint
from hookproof.engine.egress.endpoint import normalise_endpoint
from hookproof.errors import ValidationError


@pytest.mark.parametrize(
    ("url", "canonical"),
    [
        ("http://localhost:3000/webhooks", "http://localhost:3000/webhooks"),
        ("HTTP://LocalHost:3000/webhooks", "http://localhost:3000/webhooks"),
        ("http://127.0.0.1/hooks?x=1", "http://127.0.0.1/hooks?x=1"),
        ("http://127.0.0.1:80", "http://127.0.0.1/"),
        ("http://[::1]:8081/a", "http://[::1]:8081/a"),
        ("http://127.1.2.3:9/", "http://127.1.2.3:9/"),
    ],
)
def test_loopback_http_is_accepted(url: str, canonical: str) -> None:
    ep = normalise_relay_endpoint(url)
    assert ep.url == canonical
    assert is_relay_endpoint(ep.url)


@pytest.mark.parametrize(
    ("url", "code"),
    [
        ("http://192.0.2.7:3000/", "endpoint_relay_not_loopback"),
        ("http://10.0.0.1/", "endpoint_relay_not_loopback"),
        ("http://example.com/", "endpoint_relay_not_loopback"),
        ("http://localhost.example.com/", "endpoint_relay_not_loopback"),
        ("https://localhost:3000/", "endpoint_relay_scheme"),
        ("ftp://localhost/", "endpoint_relay_scheme"),
        ("http://user:pw@localhost/", "endpoint_userinfo"),
        ("http://localhost/#frag", "endpoint_fragment"),
        ("http://localhost:99999/", "endpoint_invalid"),
        ("http://local host/", "endpoint_invalid"),
        ("", "endpoint_invalid"),
    ],
)
def test_anything_else_is_refused_with_a_code(url: str, code: str) -> None:
    with pytest.raises(ValidationError) as refused:
        normalise_relay_endpoint(url)
    assert refused.value.code == code
    assert refused.value.field == "endpoint"


def test_an_https_endpoint_is_never_taken_for_a_relay() -> None:
    ep = normalise_endpoint("https://hooks.example.com/x")
    assert not is_relay_endpoint(ep.url)
