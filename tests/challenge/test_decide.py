"""The challenge's completion decided alone (``engine/challenge/decide.py``): no database, no
network, no clock. The answers are the SDK's own (``build_challenge_response``)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookproof.engine.challenge.decide import (
    Complete,
    decide,
    needs_secret,
    state_reason,
    transport_reason,
    verdict,
)
from hookproof.engine.challenge.protocol import Challenge, build_challenge
from hookproof.engine.egress.failures import FailureCode, Outcome
from hookproof.engine.egress.result import EgressResult, PeerCertificate
from hookproof.engine.subscriptions.machine import STATES, next_state
from hookproof.events.subscription_events import (
    ChallengeFailed,
    ChallengePassed,
    SubscriptionConfig,
    SubscriptionStateChanged,
)
from hookproof.projections.subscriptions import PendingChallenge, SubscriptionState
from hookproof_subscriber.challenge import build_challenge_response

T0 = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)
AT = T0 + timedelta(seconds=2)
SECRET = b"s" * 32
PEER = "192.0.2.10"


def challenge_for(generation: int = 2, digest: str = "1" * 64) -> Challenge:
    return build_challenge(
        subscription_id="sub_0123456789abcdef01234567",
        generation=generation,
        endpoint_digest=digest,
        key_id="k_engine",
        now=T0,
        ttl_s=300,
    )


CHALLENGE = challenge_for()


def state_of(
    challenge: Challenge = CHALLENGE,
    *,
    algorithm: str = "ed25519",
    state: str = "PENDING_CHALLENGE",
) -> SubscriptionState:
    return SubscriptionState(
        subscription_id=challenge.subscription_id,
        tenant_id="t1",
        generation=challenge.generation,
        state=state,
        config=SubscriptionConfig(
            endpoint="https://hooks.test/h",
            endpoint_digest=challenge.endpoint_digest,
            topics=["order.created"],
            event_versions=[1],
            region="eu",
            signature_algorithm=algorithm,
            owner="o",
        ),
        version=3,
        created_at=T0.isoformat(),
        updated_at=T0.isoformat(),
        pending=PendingChallenge(
            challenge.challenge_id,
            challenge.generation,
            challenge.endpoint_digest,
            challenge.key_id,
            challenge.expires_at,
        ),
    )


def answered(
    challenge: Challenge = CHALLENGE,
    *,
    secret: bytes | None = None,
    peer: str | None = PEER,
    resolved: tuple[str, ...] = (PEER, "192.0.2.9"),
    outcome: Outcome = Outcome.RESPONSE,
    code: str | None = None,
    status: int = 200,
    location: str | None = None,
) -> EgressResult:
    return EgressResult(
        outcome=outcome,
        code=None if code is None else FailureCode(code),
        url="https://hooks.test/h",
        host="hooks.test",
        port=443,
        status=status,
        headers=(("Content-Type", "application/json"),),
        body=build_challenge_response(challenge.body, secret=secret),
        location=location,
        resolved=resolved,
        peer_address=peer,
        certificate=PeerCertificate("spki-1", "CN=hooks.test", "CN=Test CA", None, "2031"),
    )


def test_a_proven_answer_activates_with_what_the_connection_pinned() -> None:
    state, result = state_of(), answered()
    assert verdict(CHALLENGE, state, result, AT) is None
    passed, changed = decide(state, Complete(CHALLENGE, result, AT))
    assert passed == ChallengePassed(
        subscription_id=state.subscription_id,
        challenge_id=CHALLENGE.challenge_id,
        generation=2,
        key_id="k_engine",
        peer_address=PEER,
        resolved_addresses=["192.0.2.10", "192.0.2.9"],
        spki_sha256="spki-1",
        issuer="CN=Test CA",
        at=AT.isoformat(),
    )
    assert changed == SubscriptionStateChanged(
        subscription_id=state.subscription_id,
        command="activate",
        from_state="PENDING_CHALLENGE",
        to_state="ACTIVE",
        generation=2,
        reason=f"challenge {CHALLENGE.challenge_id} passed",
        at=AT.isoformat(),
    )


def _failed(events: list[object]) -> str:
    [only] = events
    assert isinstance(only, ChallengeFailed)
    assert only.challenge_id == CHALLENGE.challenge_id and only.generation == 2
    return only.reason


@pytest.mark.parametrize(
    ("state", "result", "reason"),
    [
        (
            replace(state_of(), consumed_challenges=frozenset({CHALLENGE.challenge_id})),
            answered(),
            "challenge_consumed",
        ),
        (replace(state_of(), pending=None), answered(), "challenge_not_pending"),
        (state_of(challenge_for()), answered(), "challenge_not_pending"),  # another challenge
        (replace(state_of(), generation=3), answered(), "stale_generation"),
        (
            replace(
                state_of(),
                config=state_of(challenge_for(digest="2" * 64)).config,
            ),
            answered(),
            "endpoint_changed",
        ),
        (state_of(), answered(peer=None), "address_not_pinned"),
        (state_of(), answered(peer="192.0.2.77"), "address_not_pinned"),
        (state_of(), answered(status=500), "bad_status"),
        (state_of(state="ACTIVE"), answered(), "state_not_challengeable"),
    ],
)
def test_each_refusal_is_one_failure_with_its_reason(
    state: SubscriptionState, result: EgressResult, reason: str
) -> None:
    assert verdict(CHALLENGE, state, result, AT) == reason
    assert _failed(decide(state, Complete(CHALLENGE, result, AT))) == reason


def test_an_hmac_subscription_needs_its_secret_and_the_mac_under_it() -> None:
    state = state_of(algorithm="hmac-sha256")
    assert needs_secret(state) and not needs_secret(state_of())
    result = answered(secret=SECRET)
    assert state_reason(CHALLENGE, state, result) is None
    assert verdict(CHALLENGE, state, result, AT) == "secret_unavailable"
    assert verdict(CHALLENGE, state, result, AT, SECRET) is None
    assert verdict(CHALLENGE, state, result, AT, b"x" * 32) == "bad_proof"
    assert verdict(CHALLENGE, state, answered(), AT, SECRET) == "missing_proof"
    assert len(decide(state, Complete(CHALLENGE, result, AT, secret=SECRET))) == 2
    assert _failed(decide(state, Complete(CHALLENGE, result, AT))) == "secret_unavailable"


def test_the_secret_never_shows_in_a_repr() -> None:
    command = Complete(CHALLENGE, answered(secret=SECRET), AT, secret=SECRET)
    assert repr(SECRET) not in repr(command) and "secret" not in repr(command)


def test_an_answer_past_its_expiry_is_expired() -> None:
    late = T0 + timedelta(seconds=301)
    assert verdict(CHALLENGE, state_of(), answered(), late) == "expired"


def test_a_failure_found_before_is_recorded_as_is_with_its_location() -> None:
    """A reason given (the transport's, or found on an earlier look at the log) stands, even
    where the answer would now pass."""
    command = Complete(CHALLENGE, answered(), AT, reason="redirect", location="https://x.test/")
    [failed] = decide(state_of(), command)
    assert isinstance(failed, ChallengeFailed)
    assert (failed.reason, failed.location, failed.at) == (
        "redirect",
        "https://x.test/",
        AT.isoformat(),
    )


def test_the_transport_decides_first_when_no_answer_came() -> None:
    assert transport_reason(answered()) == (None, None)
    redirect = answered(outcome=Outcome.REDIRECT, code="redirect", status=302, location="/x")
    assert transport_reason(redirect) == ("redirect", "/x")
    assert transport_reason(answered(outcome=Outcome.NOT_SENT, code="connect_timeout")) == (
        "connect_timeout",
        None,
    )
    assert transport_reason(answered(code="response_too_large")) == ("response_too_large", None)


@settings(max_examples=300, deadline=None)
@given(
    state_name=st.sampled_from(STATES),
    generation_shift=st.sampled_from([0, 0, 1]),
    consumed=st.booleans(),
    pending_matches=st.booleans(),
    peer_pinned=st.booleans(),
    status=st.sampled_from([200, 200, 204, 302, 500]),
    given_reason=st.none() | st.sampled_from(["redirect", "no_response", "challenge_not_pending"]),
)
def test_it_activates_exactly_when_nothing_refuses(
    state_name: str,
    generation_shift: int,
    consumed: bool,
    pending_matches: bool,
    peer_pinned: bool,
    status: int,
    given_reason: str | None,
) -> None:
    state = replace(
        state_of(state=state_name),
        generation=CHALLENGE.generation + generation_shift,
        consumed_challenges=frozenset({CHALLENGE.challenge_id} if consumed else ()),
    )
    if not pending_matches:
        state = replace(state, pending=None)
    result = answered(peer=PEER if peer_pinned else "192.0.2.77", status=status)
    events = decide(state, Complete(CHALLENGE, result, AT, reason=given_reason))
    refused = (
        given_reason is not None
        or consumed
        or not pending_matches
        or generation_shift != 0
        or not peer_pinned
        or status != 200
        or next_state(state_name, "activate") is None
    )
    if refused:
        expected = given_reason or verdict(CHALLENGE, state, result, AT)
        assert expected is not None
        assert _failed(events) == expected
    else:
        assert [type(e) for e in events] == [ChallengePassed, SubscriptionStateChanged]
        assert isinstance(events[1], SubscriptionStateChanged)
        assert events[1].to_state == next_state(state_name, "activate")
