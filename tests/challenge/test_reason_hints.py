"""Every reason a subscription's ``lastReason`` or a delivery's ``lastCode`` can show comes
with a detail a person can act on (pure)."""

from __future__ import annotations

import pytest

from hookproof.engine.challenge.disclosure import code_detail, reason_hint, tenant_reason
from hookproof.engine.challenge.drift import DRIFT_REASONS
from hookproof.engine.challenge.protocol import REASON_CODES
from hookproof.engine.destinations.brokers.evidence import BrokerCode
from hookproof.engine.destinations.relay.codes import RelayCode
from hookproof.engine.egress.failures import FAILURE_CODES

CODES = sorted(
    set(REASON_CODES)
    | set(DRIFT_REASONS)
    | set(FAILURE_CODES)
    | {c.value for c in BrokerCode}
    | {c.value for c in RelayCode}
)


@pytest.mark.parametrize("code", CODES)
def test_every_reason_a_tenant_can_see_has_a_detail(code: str) -> None:
    shown = tenant_reason(code)
    hint = reason_hint(shown, 503 if shown == "bad_status" else None)
    assert hint and len(hint) > 30, (code, hint)


def test_a_refused_literal_address_is_named_with_the_setting() -> None:
    for endpoint, pair in (
        ("https://127.0.0.1:9443/hooks", "127.0.0.1:9443"),
        ("https://10.1.2.3/hooks", "10.1.2.3:443"),
        ("https://[::1]:8443/x", "[::1]:8443"),
    ):
        hint = reason_hint("endpoint_ip_forbidden", endpoint=endpoint)
        assert hint is not None and f"HOOKPROOF_EGRESS_ALLOW={pair}" in hint, hint
        assert "no DNS is involved" in hint
    # a host name: nothing about the engine's view of DNS (which address it resolved to)
    named = reason_hint("endpoint_ip_forbidden", endpoint="https://hooks.example.com/x")
    assert named is not None and "did not resolve to an address the engine may reach" in named


def test_a_status_code_and_a_brokers_words() -> None:
    assert "HTTP 503" in str(reason_hint("http_503"))
    said = "the broker closed the channel: NOT_FOUND - no exchange 'x' in vhost '/'"
    detail = code_detail("broker_refused", "broker_refused", endpoint=None, said=said)
    assert detail is not None and detail.startswith(said) and "must exist" in detail
    # a code tenants see as endpoint_ip_forbidden never carries the transport's words
    hidden = code_detail(
        "endpoint_ip_forbidden", "dns_failure", endpoint="https://h.example/x", said="NXDOMAIN"
    )
    assert hidden is not None and "NXDOMAIN" not in hidden
