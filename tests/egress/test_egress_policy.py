"""The transport's pure pieces, without sockets: the address policy (vetting and drift share
its verdicts), the one outcome rule, and the pinned pool's reuse rule."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hookproof.engine.egress import (
    FAILURE_CODES,
    AddressPolicy,
    FailureCode,
    Outcome,
    PoolLimits,
    address_set,
    classify,
    is_lost,
    outcome_of,
    reuse_refusal,
)
from hookproof.engine.egress.pool import ConnectionFacts

ip = ipaddress.ip_address
POLICY = AddressPolicy.build([443, 8443], [("127.0.0.1", 9443)])


def test_vet_refuses_if_any_answer_is_denied() -> None:
    v = POLICY.vet([ip("93.184.215.14"), ip("10.0.0.1")], 443)
    assert v.refusal is FailureCode.REFUSED_ADDRESS and v.vetted == frozenset()
    assert v.denied == (("10.0.0.1", "ipv4_private"),)


def test_vet_public_and_exact_allowance() -> None:
    v = POLICY.vet([ip("93.184.215.14")], 443)
    assert v.refusal is None and v.vetted == {(ip("93.184.215.14"), 443)} and not v.allowances
    allowed = POLICY.vet([ip("127.0.0.1")], 9443)
    assert allowed.refusal is None and allowed.allowances == (ip("127.0.0.1"),)
    assert POLICY.vet([ip("127.0.0.1")], 443).refusal is FailureCode.REFUSED_ADDRESS
    assert POLICY.vet([ip("93.184.215.14")], 9443).refusal is FailureCode.REFUSED_PORT


def test_drift_reuses_the_vetting_verdicts() -> None:
    v = POLICY.vet([ip("::ffff:192.168.1.1"), ip("93.184.215.14")], 443)
    drift = POLICY.drift(["93.184.215.14"], v)
    assert drift.added == {"::ffff:192.168.1.1"} and not drift.removed
    assert dict(drift.denied) == {"::ffff:192.168.1.1": "ipv4_mapped:ipv4_private"}
    same = POLICY.drift(["2606:2800:0220:0001::1"], POLICY.vet([ip("2606:2800:220:1::1")], 443))
    assert not same.changed
    assert address_set(["2606:2800:0220:0001::1", "x"]) == {"2606:2800:220:1::1", "x"}


@given(st.ip_addresses())
def test_vetting_and_classify_agree(addr: ipaddress.IPv4Address | ipaddress.IPv6Address) -> None:
    v = POLICY.vet([addr], 443)
    assert (v.refusal is FailureCode.REFUSED_ADDRESS) == (classify(addr) is not None)


@pytest.mark.parametrize(
    ("status", "code", "started", "outcome"),
    [
        (204, None, True, Outcome.RESPONSE),
        (200, FailureCode.RESPONSE_TOO_LARGE, True, Outcome.RESPONSE),
        (302, FailureCode.REDIRECT, True, Outcome.REDIRECT),
        (None, FailureCode.CONNECTION_RESET, True, Outcome.UNKNOWN),
        (None, FailureCode.REFUSED_ADDRESS, False, Outcome.REFUSED),
        (None, FailureCode.PIN_MISMATCH, False, Outcome.REFUSED),
        (None, FailureCode.INVALID_URL, False, Outcome.REFUSED),
        (None, FailureCode.DNS_FAILURE, False, Outcome.NOT_SENT),
        (None, FailureCode.TLS_ERROR, False, Outcome.NOT_SENT),
    ],
)
def test_outcome_rule(status, code, started, outcome) -> None:
    assert outcome_of(status=status, code=code, started=started) is outcome


def test_lost_rule() -> None:
    assert is_lost(Outcome.UNKNOWN, FailureCode.RESPONSE_TIMEOUT)
    assert is_lost(Outcome.RESPONSE, FailureCode.CONNECTION_RESET)
    assert not is_lost(Outcome.RESPONSE, FailureCode.RESPONSE_TOO_LARGE)
    assert not is_lost(Outcome.RESPONSE, None)
    assert not is_lost(Outcome.NOT_SENT, FailureCode.CONNECT_FAILED)
    assert {c.value for c in FailureCode} == FAILURE_CODES
    assert FailureCode.REFUSED_ADDRESS == "egress_refused_address"


ORIGIN = ("https", "hooks.test", 443, 1)
PEER = (ip("93.184.215.14"), 443)
LIMITS = PoolLimits(idle_s=15, max_age_s=60, max_requests=1000)


def _conn(**kw) -> ConnectionFacts:
    base = dict(
        origin=ORIGIN,
        peer=PEER,
        peer_text="93.184.215.14",
        certificate=None,
        opened_at=100.0,
        last_used=100.0,
        requests=1,
    )
    base.update(kw)
    return ConnectionFacts(**base)  # type: ignore[arg-type]


def test_pool_reuse_rule() -> None:
    vetted = frozenset({PEER})
    assert reuse_refusal(_conn(), ORIGIN, vetted, 101.0, LIMITS) is None
    assert reuse_refusal(
        _conn(), ORIGIN, frozenset({(ip("93.184.215.15"), 443)}), 101.0, LIMITS
    ) == ("peer_not_vetted")
    assert reuse_refusal(_conn(), ORIGIN, frozenset(), 101.0, LIMITS) == "peer_not_vetted"
    assert reuse_refusal(_conn(), ("https", "other.test", 443, 1), vetted, 101, LIMITS) == (
        "other_origin"
    )
    assert reuse_refusal(_conn(), ("https", "hooks.test", 443, 2), vetted, 101, LIMITS) == (
        "other_origin"
    )
    assert reuse_refusal(_conn(last_used=150.0), ORIGIN, vetted, 160.0, LIMITS) == "max_age"
    assert reuse_refusal(_conn(last_used=100.0), ORIGIN, vetted, 115.5, LIMITS) == "idle"
    assert reuse_refusal(_conn(requests=1000), ORIGIN, vetted, 101.0, LIMITS) == "max_requests"
    off = PoolLimits(enabled=False)
    assert reuse_refusal(_conn(), ORIGIN, vetted, 101.0, off) == "pool_disabled"
