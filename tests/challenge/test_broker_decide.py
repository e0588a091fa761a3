"""The pure decisions of a broker challenge (``engine/challenge/broker.py``): the publish's
outcome recorded, an answer judged against the log (nonce, proof, expiry, replay, generation),
and only a valid answer recorded."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from hookproof.engine.challenge.broker import (
    Answer,
    Published,
    answer_reason,
    challenge_of,
    decide_answer,
    decide_published,
)
from hookproof.engine.challenge.protocol import build_challenge
from hookproof.events.subscription_events import (
    ChallengeFailed,
    ChallengeIssued,
    ChallengePassed,
    ChallengePublished,
    DestinationConfig,
    SubscriptionConfig,
    SubscriptionRegistered,
)
from hookproof.projections.subscriptions import SubscriptionState, evolve
from hookproof_subscriber import build_challenge_response

NOW = datetime(2026, 12, 2, 6, 0, tzinfo=UTC)
SECRET = b"s" * 32
DEST = DestinationConfig(
    type="nats",
    scheme="nats",
    host="127.0.0.1",
    port=4222,
    url="nats://127.0.0.1:4222",
    uri="nats://127.0.0.1:4222/a.b",
    digest="d" * 64,
    subject="a.b",
    stream="S",
)


def _state(
    algorithm: str = "hmac-sha256", published: bool = True
) -> tuple[SubscriptionState, bytes]:
    config = SubscriptionConfig(
        endpoint=DEST.uri,
        endpoint_digest=DEST.digest,
        topics=["t"],
        event_versions=[1],
        region="r",
        signature_algorithm=algorithm,
        owner="o",
        destination=DEST,
    )
    challenge = build_challenge(
        subscription_id="sub_" + "1" * 24,
        generation=1,
        endpoint_digest=DEST.digest,
        key_id="k1",
        now=NOW,
        ttl_s=60,
    )
    events = [
        SubscriptionRegistered(
            subscription_id=challenge.subscription_id,
            tenant_id="t1",
            generation=1,
            config=config,
            at=NOW.isoformat(),
        ),
        ChallengeIssued(
            subscription_id=challenge.subscription_id,
            challenge_id=challenge.challenge_id,
            generation=1,
            endpoint_digest=DEST.digest,
            nonce_sha256=challenge.nonce_sha256,
            key_id="k1",
            expires_at=challenge.expires_at,
            at=NOW.isoformat(),
        ),
    ]
    if published:
        events.append(
            ChallengePublished(
                subscription_id=challenge.subscription_id,
                challenge_id=challenge.challenge_id,
                generation=1,
                peer_address="127.0.0.1",
                resolved_addresses=["127.0.0.1"],
                broker={"type": "nats"},
                at=NOW.isoformat(),
            )
        )
    state = None
    for v, ev in enumerate(events, 1):
        state = evolve(state, ev, v)
    assert state is not None
    secret = SECRET if algorithm == "hmac-sha256" else None
    return state, build_challenge_response(challenge.body, secret=secret)


def test_the_rebuilt_challenge_is_the_published_bytes() -> None:
    state, good = _state()
    pending = state.pending
    assert pending is not None
    nonce = json.loads(good)["nonce"]
    rebuilt = challenge_of(state, pending, nonce)
    assert json.loads(good)["challengeId"] == rebuilt.challenge_id
    assert answer_reason(state, Answer(rebuilt.challenge_id, good, NOW, SECRET)) is None


def test_only_a_valid_answer_is_recorded() -> None:
    state, good = _state()
    cid = state.pending.challenge_id  # type: ignore[union-attr]
    events = decide_answer(state, Answer(cid, good, NOW, SECRET))
    assert isinstance(events[0], ChallengePassed) and events[0].peer_address == "127.0.0.1"
    assert events[1].to_state == "ACTIVE"  # type: ignore[attr-defined]
    doc = json.loads(good)
    cases = {
        "bad_proof": (json.dumps({**doc, "proof": "AAAA"}).encode(), SECRET),
        "nonce_mismatch": (json.dumps({**doc, "nonce": "x" * 43}).encode(), SECRET),
        "malformed_response": (b"[1]", SECRET),
        "secret_unavailable": (good, None),
    }
    for reason, (body, secret) in cases.items():
        answer = Answer(cid, body, NOW, secret)
        assert answer_reason(state, answer) == reason
        assert decide_answer(state, answer) == []
    late = Answer(cid, good, NOW + timedelta(seconds=61), SECRET)
    assert answer_reason(state, late) == "expired" and decide_answer(state, late) == []
    assert answer_reason(state, Answer("chl_other", good, NOW, SECRET)) == "challenge_not_pending"


def test_an_answer_before_the_broker_confirmed_or_after_it_was_consumed_is_refused() -> None:
    state, good = _state(published=False)
    cid = state.pending.challenge_id  # type: ignore[union-attr]
    assert answer_reason(state, Answer(cid, good, NOW, SECRET)) == "challenge_not_published"
    state, good = _state()
    passed = decide_answer(state, Answer(cid := state.pending.challenge_id, good, NOW, SECRET))  # type: ignore[union-attr]
    after = state
    for i, ev in enumerate(passed, state.version + 1):
        after = evolve(after, ev, i)
    assert answer_reason(after, Answer(cid, good, NOW, SECRET)) == "response_replayed"


def test_the_publish_outcome() -> None:
    state, _ = _state(published=False)
    cid = state.pending.challenge_id  # type: ignore[union-attr]
    ok = Published(cid, 1, True, None, "127.0.0.1", ("127.0.0.1",), None, {"type": "nats"}, NOW)
    (ev,) = decide_published(state, ok)
    assert isinstance(ev, ChallengePublished) and ev.resolved_addresses == ["127.0.0.1"]
    no = Published(cid, 1, False, "unroutable", None, (), None, {}, NOW)
    (ev,) = decide_published(state, no)
    assert isinstance(ev, ChallengeFailed) and ev.reason == "unroutable"
    stale = Published("chl_gone", 1, True, None, None, (), None, {}, NOW)
    assert decide_published(state, stale) == []


def test_precheck_judges_an_answer_by_the_projection_row_alone() -> None:
    import hashlib

    from hookproof.engine.challenge.broker import precheck
    from hookproof.projections.subscriptions import PendingRow

    now = datetime(2026, 12, 1, tzinfo=UTC)
    nonce = "n" * 43
    row = PendingRow(
        "chl_" + "a" * 24,
        hashlib.sha256(nonce.encode()).hexdigest(),
        (now + timedelta(seconds=60)).isoformat(),
        "chl_" + "b" * 24,
    )

    def body(n: str | None) -> bytes:
        return json.dumps({"nonce": n} if n is not None else {}).encode()

    def judged(r: PendingRow | None, cid: str, b: bytes, at: datetime = now) -> str | None:
        return precheck(r, Answer(cid, b, at))

    cid = row.challenge_id
    assert cid is not None
    assert judged(row, cid, body(nonce)) is None
    assert judged(None, cid, body(nonce)) == "challenge_not_found"
    assert judged(row, "chl_" + "c" * 24, body(nonce)) == "challenge_not_found"
    assert judged(row, "chl_" + "b" * 24, body(nonce)) == "response_replayed"
    none_pending = PendingRow(None, None, None, "chl_" + "b" * 24)
    assert judged(none_pending, cid, body(nonce)) == "challenge_not_found"
    assert judged(row, cid, body(None)) == "malformed_response"
    assert judged(row, cid, b"not json") == "malformed_response"
    assert judged(row, cid, body("m" * 43)) == "nonce_mismatch"
    assert judged(row, cid, body(nonce), now + timedelta(seconds=60)) == "expired"
