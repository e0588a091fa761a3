"""Drift after a passed challenge: DNS rebinding into a denied range suspends the subscription
before any packet is sent; another certificate issuer suspends it; other changes are recorded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trustme

from hookproof.engine.challenge.drift import (
    DEFAULT_POLICY,
    DriftGuard,
    DriftPolicy,
    assess,
    drift_reason,
)
from hookproof.engine.egress import EgressResult, Outcome, PeerCertificate
from hookproof.events.subscription_events import SubscriptionConfig
from hookproof.projections.subscriptions import SubscriptionState

from .conftest import Harness, MakeHarness, SocketGuard


async def _active(h: Harness) -> tuple[str, DriftGuard]:
    view = await h.register()
    h.endpoint.configure(h.subscriber(view))
    await h.engine.drain()
    assert (await h.get(view["id"]))["state"] == "ACTIVE"
    guard = DriftGuard(h.engine.store, h.engine.subscriptions, h.engine.services.transport)
    return view["id"], guard


async def _post(h: Harness, guard: DriftGuard, sid: str) -> EgressResult:
    state = await h.engine.subscriptions.load(sid)
    assert state is not None
    return await guard.post(state, state.config.endpoint, b"{}", {"Content-Type": "x/y"})


@pytest.mark.parametrize(
    "answers",
    [
        ["10.0.0.1"],
        ["127.0.0.1", "10.0.0.1"],  # a good answer does not excuse a bad one
        ["169.254.169.254"],
        ["100.64.0.1"],
        ["0.0.0.0"],
    ],
)
async def test_rebinding_to_a_denied_range_suspends_before_any_connect(
    make_harness: MakeHarness, socket_guard: SocketGuard, answers: list[str]
) -> None:
    h = await make_harness()
    sid, guard = await _active(h)
    passed = await h.events(sid, "subscription.challenge_passed")
    assert passed[0]["resolved_addresses"] == ["127.0.0.1"]
    requests_before = len(h.endpoint.requests)
    connects_before = list(socket_guard.attempts)

    h.dns.records["hooks.test"] = answers
    result = await _post(h, guard, sid)

    assert result.outcome is Outcome.REFUSED
    assert result.code == "egress_refused_address"
    assert result.peer_address is None and not result.request_started
    # not one connect attempt anywhere (the denied address nor the allowed one)
    assert socket_guard.attempts[len(connects_before) :] == []
    assert socket_guard.refused == []
    assert len(h.endpoint.requests) == requests_before
    state = await h.get(sid)
    assert state["state"] == "SUSPENDED"
    assert state["lastReason"] == "dns_rebinding_denied"
    history = await h.history(sid)
    drift = [e for e in history if e["type"] == "subscription.drift_detected"]
    assert len(drift) == 1
    assert drift[0]["data"]["reason"] == "dns_rebinding_denied"
    assert drift[0]["actor"] == "system:drift"
    # the tenant is not shown what the engine's resolver answered (issue 11, defect 7) ...
    assert drift[0]["data"]["addresses"] == []
    assert drift[0]["data"]["addressesWithheld"] == len(answers)
    # ... the log keeps it, for the operator's audit
    recorded = await h.engine.store.read_stream(f"subscription-{sid}")
    [event] = [e.decode() for e in recorded if e.type == "subscription.drift_detected"]
    assert set(event.addresses) == set(answers)
    suspend = [e for e in history if e["type"] == "subscription.state_changed"][-1]
    assert suspend["data"]["command"] == "suspend"
    assert suspend["data"]["reason"] == "dns_rebinding_denied"
    # the suspension and its evidence are one append (adjacent versions, one actor)
    assert suspend["globalPosition"] + 1 == drift[0]["globalPosition"]

    # the next post is refused again, with no second suspension
    await _post(h, guard, sid)
    assert len(await h.events(sid, "subscription.drift_detected")) == 1
    assert socket_guard.attempts[len(connects_before) :] == []

    # getting back needs a new challenge: resume -> PENDING_CHALLENGE -> challenge passes
    h.dns.records["hooks.test"] = ["127.0.0.1"]
    status, _, body = await h.api.call("POST", f"/v1/subscriptions/{sid}/resume", token=h.token)
    assert status == 200, body
    await h.engine.drain()
    assert (await h.get(sid))["state"] == "ACTIVE"
    assert len(await h.events(sid, "subscription.challenge_passed")) == 2


async def test_rebinding_while_pooled_connections_are_open_suspends_before_the_next_send(
    make_harness: MakeHarness, socket_guard: SocketGuard
) -> None:
    """Pooled connections to the vetted address stay open; the next request's own vetting
    refuses the rebound name: nothing is written on them, nothing new is connected."""
    h = await make_harness()
    sid, guard = await _active(h)
    port = h.endpoint.port
    connects_before = socket_guard.connects_to(port)
    for _ in range(3):
        delivered = await _post(h, guard, sid)
        assert delivered.status is not None and delivered.peer_address == "127.0.0.1"
    assert socket_guard.connects_to(port) - connects_before <= 1  # the pool carried them
    requests_before = len(h.endpoint.requests)
    attempts_before = list(socket_guard.attempts)

    h.dns.records["hooks.test"] = ["10.0.0.1"]
    result = await _post(h, guard, sid)

    assert result.outcome is Outcome.REFUSED and result.code == "egress_refused_address"
    assert not result.request_started and result.peer_address is None
    assert socket_guard.attempts == attempts_before and socket_guard.refused == []
    assert len(h.endpoint.requests) == requests_before
    state = await h.get(sid)
    assert state["state"] == "SUSPENDED" and state["lastReason"] == "dns_rebinding_denied"


async def test_rebinding_adds_a_denied_ipv6_answer(
    make_harness: MakeHarness, socket_guard: SocketGuard
) -> None:
    """The NODATA AAAA answer seen at challenge time is not kept (c-ares' own cache is off;
    ours keeps answers at most min(TTL, 30 s)): the added denied AAAA is seen and refused."""
    h = await make_harness()
    sid, guard = await _active(h)
    h.dns.records["hooks.test"] = ["127.0.0.1", "fd00::5"]
    queries = len(h.dns.queries)
    result = await _post(h, guard, sid)
    assert ("hooks.test", "AAAA", "udp") in h.dns.queries[queries:]
    assert result.code == "egress_refused_address"
    assert (await h.get(sid))["state"] == "SUSPENDED"


async def test_certificate_from_another_issuer_suspends(
    make_harness: MakeHarness, ca_files: tuple[trustme.CA, Path]
) -> None:
    other_ca, bundle = ca_files
    # a certificate is seen on a new connection (a pooled one keeps the one it was opened
    # with, and that is what its attempts record): here every request opens one
    h = await make_harness(ca_file=bundle, pool_max_requests=1)  # both CAs trusted
    sid, guard = await _active(h)
    passed = (await h.events(sid, "subscription.challenge_passed"))[0]

    other_ca.issue_cert("hooks.test").configure_cert(h.endpoint.ctx)
    result = await _post(h, guard, sid)

    assert result.certificate is not None
    assert result.certificate.issuer != passed["issuer"]
    state = await h.get(sid)
    assert state["state"] == "SUSPENDED"
    assert state["lastReason"] == "certificate_issuer_changed"
    [drift] = await h.events(sid, "subscription.drift_detected")
    assert drift["reason"] == "certificate_issuer_changed"
    assert drift["spki_sha256"] == result.certificate.spki_sha256 != passed["spki_sha256"]


async def test_renewed_certificate_same_issuer_is_recorded_once(
    make_harness: MakeHarness, pki: Any
) -> None:
    h = await make_harness(pool_max_requests=1)  # a new certificate shows on a new connection
    sid, guard = await _active(h)
    pki.ca.issue_cert("hooks.test").configure_cert(h.endpoint.ctx)  # new key, same CA

    for _ in range(2):
        result = await _post(h, guard, sid)
        assert result.status is not None  # delivered
    assert (await h.get(sid))["state"] == "ACTIVE"
    drift = await h.events(sid, "subscription.drift_detected")
    assert [d["reason"] for d in drift] == ["certificate_key_changed"]


async def test_address_set_change_to_allowed_addresses_is_recorded_not_suspended(
    make_harness: MakeHarness,
) -> None:
    # at challenge time the name answers two allowed addresses (only 127.0.0.1 listens)
    h = await make_harness(answers=("127.0.0.1", "127.0.0.2"))
    sid, guard = await _active(h)
    passed = (await h.events(sid, "subscription.challenge_passed"))[0]
    assert passed["resolved_addresses"] == ["127.0.0.1", "127.0.0.2"]
    assert passed["peer_address"] == "127.0.0.1"

    h.dns.records["hooks.test"] = ["127.0.0.2", "127.0.0.1"]  # same set: nothing to record
    assert (await _post(h, guard, sid)).status is not None
    assert await h.events(sid, "subscription.drift_detected") == []

    h.dns.records["hooks.test"] = ["127.0.0.1"]  # the set changed, to allowed addresses
    for _ in range(2):
        result = await _post(h, guard, sid)
        assert result.status is not None and result.peer_address == "127.0.0.1"  # delivered
    assert (await h.get(sid))["state"] == "ACTIVE"
    drift = await h.events(sid, "subscription.drift_detected")
    assert [(d["reason"], d["addresses"]) for d in drift] == [
        ("address_set_changed", ["127.0.0.1"])
    ]  # recorded once per distinct observation


# -- the pure policy ---------------------------------------------------------------------


def _state(
    pinned: tuple[str, ...] = ("93.184.215.14",), issuer: str | None = "CN=CA one", spki: str = "aa"
) -> SubscriptionState:
    config = SubscriptionConfig(
        endpoint="https://hooks.example.com/in",
        endpoint_digest="0" * 64,
        topics=["t"],
        event_versions=[1],
        region="eu",
        signature_algorithm="ed25519",
        owner="o",
    )
    return SubscriptionState(
        subscription_id="sub_1",
        tenant_id="ten_1",
        generation=1,
        state="ACTIVE",
        config=config,
        version=3,
        created_at="2025-01-01T00:00:00+00:00",
        updated_at="2025-01-01T00:00:00+00:00",
        pinned_addresses=pinned,
        spki_sha256=spki,
        issuer=issuer,
    )


def _result(
    *,
    resolved: tuple[str, ...] = ("93.184.215.14",),
    issuer: str | None = "CN=CA one",
    spki: str | None = "aa",
    denied: tuple[tuple[str, str], ...] = (),
) -> EgressResult:
    cert = (
        None
        if issuer is None or spki is None
        else PeerCertificate(
            spki_sha256=spki, subject="CN=h", issuer=issuer, authority_key_id=None, not_after=""
        )
    )
    return EgressResult(
        outcome=Outcome.REFUSED if denied else Outcome.RESPONSE,
        code="egress_refused_address" if denied else None,
        url="https://hooks.example.com/in",
        host="hooks.example.com",
        port=443,
        status=None if denied else 200,
        resolved=resolved,
        certificate=None if denied else cert,
        denied=denied,
    )


@pytest.mark.parametrize(
    ("result", "suspend", "record"),
    [
        (_result(), None, None),
        (_result(resolved=("93.184.215.15",)), None, "address_set_changed"),
        (_result(resolved=("93.184.215.14", "2606:2800::1")), None, "address_set_changed"),
        (
            _result(resolved=("10.0.0.1",), denied=(("10.0.0.1", "private"),)),
            "dns_rebinding_denied",
            None,
        ),
        (_result(issuer="CN=CA two"), "certificate_issuer_changed", None),
        (_result(spki="bb"), None, "certificate_key_changed"),
    ],
    ids=["same", "public-move", "public-add", "denied", "issuer", "renewal"],
)
def test_default_policy(result: EgressResult, suspend: str | None, record: str | None) -> None:
    verdict = assess(_state(), result)
    assert (verdict.suspend, verdict.record) == (suspend, record)
    assert drift_reason(_state(), result) == suspend


def test_policy_knobs() -> None:
    strict = DriftPolicy(address_change="suspend", key_change="suspend")
    assert drift_reason(_state(), _result(resolved=("93.184.215.15",)), strict) == (
        "address_set_changed"
    )
    assert drift_reason(_state(), _result(spki="bb"), strict) == "certificate_key_changed"
    lax = DriftPolicy(issuer_change="record")
    assert assess(_state(), _result(issuer="CN=x"), lax).record == "certificate_issuer_changed"
    # denied addresses suspend whatever the policy says
    denied = _result(resolved=("10.0.0.1",), denied=(("10.0.0.1", "private"),))
    assert drift_reason(_state(), denied, DriftPolicy(issuer_change="ignore")) == (
        "dns_rebinding_denied"
    )
    # nothing recorded at the challenge (no pin, no issuer): nothing to compare
    assert assess(_state(pinned=(), issuer=None), _result(resolved=("1.2.3.4",))).reason is None
    assert DEFAULT_POLICY.issuer_change == "suspend"
