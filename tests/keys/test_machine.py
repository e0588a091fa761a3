"""The key transition table, row by row, and properties over random command sequences."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookproof.engine.keys import KeyNotFound, KeyTransitionForbidden, Windows
from hookproof.engine.keys import machine as m
from hookproof.events.key_events import (
    KeyActivated,
    KeyCreated,
    KeyMaterialDestroyed,
    KeyRevoked,
    KeyRolledBack,
    KeyState,
    KeySuperseded,
    RevokeReason,
)
from hookproof.projections.key_ring import KeyView, evolve

T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
W = Windows(max_queue_delay_s=600, max_retry_window_s=3000, clock_skew_s=120)
STATES = [m.ABSENT, *KeyState]


def create(active: bool = False, at: datetime = T0) -> m.Create:
    return m.Create(
        key_id="k_a",
        algorithm="ed25519",
        purpose="engine",
        subscription_id=None,
        generation=1,
        public_key="x" * 43,
        max_message_lifetime_s=300,
        at=at,
        active=active,
    )


def view_in(state: str) -> KeyView | None:
    """A key in ``state``, reached through the table itself."""
    if state == m.ABSENT:
        return None
    v = evolve(None, m.decide(None, create(active=True))[0])
    if state == KeyState.ACTIVE:
        return v
    if state == KeyState.NOT_BEFORE:
        return evolve(None, m.decide(None, create())[0])
    v = evolve(v, m.decide(v, m.Supersede(at=T0, windows=W))[0])
    if state == KeyState.VERIFY_ONLY:
        return v
    return evolve(v, m.decide(v, m.Retire(at=T0 + timedelta(days=1)))[0])


def command(name: str, at: datetime = T0) -> m.Command:
    return {
        "publish": lambda: create(False, at),
        "create_active": lambda: create(True, at),
        "activate": lambda: m.Activate(at=at),
        "supersede": lambda: m.Supersede(at=at, windows=W),
        "retire": lambda: m.Retire(at=at + timedelta(days=1)),
        "revoke": lambda: m.Revoke(at=at),
        "rollback": lambda: m.Rollback(at=at),
        "destroy": lambda: m.Destroy(at=at),
    }[name]()


COMMANDS = [
    "publish",
    "create_active",
    "activate",
    "supersede",
    "retire",
    "revoke",
    "rollback",
    "destroy",
]
EVENT_OF = {
    "publish": KeyCreated,
    "create_active": KeyCreated,
    "activate": KeyActivated,
    "supersede": KeySuperseded,
    "retire": KeyRevoked,
    "revoke": KeyRevoked,
    "rollback": KeyRolledBack,
    "destroy": KeyMaterialDestroyed,
}


@pytest.mark.parametrize(("src", "cmd"), list(m.TRANSITIONS), ids=lambda x: str(x))
def test_allowed_row(src: str, cmd: str) -> None:
    view = view_in(src)
    events = m.decide(view, command(cmd))
    assert [type(e) for e in events] == [EVENT_OF[cmd]]
    after = evolve(view, events[0])
    assert after.state == m.TRANSITIONS[(src, cmd)]
    # every transition carries its time
    at = getattr(events[0], "at", None) or getattr(events[0], "created_at", None)
    assert isinstance(at, datetime)


FORBIDDEN = [p for p in itertools.product(STATES, COMMANDS) if p not in m.TRANSITIONS]


@pytest.mark.parametrize(("src", "cmd"), FORBIDDEN, ids=lambda x: str(x))
def test_forbidden_row(src: str, cmd: str) -> None:
    with pytest.raises(KeyTransitionForbidden) as info:
        m.decide(view_in(src), command(cmd))
    expected = {"rollback": "rollback_refused", "destroy": "destroy_refused"}
    assert info.value.code == expected.get(cmd, "key_transition_forbidden")
    assert info.value.status == 409


def test_table_shape() -> None:
    assert len(m.TRANSITIONS) == 10
    # REVOKED is absorbing
    assert {dst for (src, _), dst in m.TRANSITIONS.items() if src == KeyState.REVOKED} == {
        KeyState.REVOKED
    }


def test_supersede_records_deadline_and_its_parts() -> None:
    v = view_in(KeyState.ACTIVE)
    (e,) = m.decide(v, m.Supersede(at=T0, windows=W, superseded_by="k_b"))
    assert isinstance(e, KeySuperseded)
    assert e.verify_only_until == T0 + timedelta(seconds=600 + 3000 + 120)
    assert (e.max_queue_delay_s, e.max_retry_window_s, e.clock_skew_s) == (600, 3000, 120)
    assert e.superseded_by == "k_b"


def test_retire_before_deadline_refused() -> None:
    v = evolve(
        view_in(KeyState.ACTIVE),
        m.decide(view_in(KeyState.ACTIVE), m.Supersede(at=T0, windows=W))[0],
    )
    with pytest.raises(KeyTransitionForbidden) as info:
        m.decide(v, m.Retire(at=T0 + timedelta(seconds=W.total_s - 1)))
    assert info.value.code == "retire_too_early"
    (e,) = m.decide(v, m.Retire(at=T0 + timedelta(seconds=W.total_s)))
    assert isinstance(e, KeyRevoked) and e.reason is RevokeReason.RETIRED


def test_rollback_after_deadline_refused() -> None:
    v = view_in(KeyState.VERIFY_ONLY)
    with pytest.raises(KeyTransitionForbidden) as info:
        m.decide(v, m.Rollback(at=T0 + timedelta(seconds=W.total_s)))
    assert info.value.code == "rollback_refused"


def test_revoke_cannot_claim_retirement() -> None:
    with pytest.raises(KeyTransitionForbidden):
        m.decide(view_in(KeyState.ACTIVE), m.Revoke(at=T0, reason=RevokeReason.RETIRED))


def test_docs_draws_every_row() -> None:
    text = m.docs()
    assert text.startswith("```mermaid\nstateDiagram-v2")
    for (src, cmd), dst in m.TRANSITIONS.items():
        left = "[*]" if src == m.ABSENT else src
        assert f"{left} --> {dst}: {cmd}" in text
        assert f"| {src} | {cmd} | {dst} |" in text


# -- the ring as a whole: a pure model driven by random operations -----------------------

OPS = st.lists(
    st.tuples(
        st.sampled_from(
            [
                "create",
                "rotate",
                "promote",
                "rollback",
                "compromise",
                "retire",
                "destroy",
                "abandon",
                "tick",
                "sub_create",
                "sub_rotate",
            ]
        ),
        st.integers(min_value=0, max_value=7),
        st.integers(min_value=0, max_value=5000),
    ),
    max_size=40,
)


def _run(ops: list[tuple[str, int, int]]) -> None:
    ring: dict[str, KeyView] = {}
    now = T0
    counter = itertools.count()
    ever_compromised: set[str] = set()
    for op, pick, secs in ops:
        ids = sorted(ring)
        target = ids[pick % len(ids)] if ids else "k_missing"
        before = dict(ring)
        try:
            if op == "tick":
                now += timedelta(seconds=secs)
                continue
            if op in ("create", "rotate", "sub_create", "sub_rotate"):
                purpose = "engine" if op in ("create", "rotate") else "subscription"
                steps = [
                    m.plan_create(
                        ring,
                        key_id=f"k_{next(counter)}",
                        algorithm="ed25519" if purpose == "engine" else "hmac-sha256",
                        purpose=purpose,
                        subscription_id=None if purpose == "engine" else "s1",
                        public_key=None,
                        max_message_lifetime_s=300,
                        at=now,
                        active=op in ("create", "sub_create"),
                    )
                ]
            elif op == "promote":
                steps = m.plan_promote(ring, target, at=now, windows=W)
            elif op == "rollback":
                steps = m.plan_rollback(ring, target, at=now, windows=W)
            elif op == "compromise":
                steps = [m.plan_compromise(ring, target, at=now)]
            elif op == "abandon":
                steps = [m.plan_abandon(ring, target, at=now)]
            elif op == "retire":
                steps = m.plan_retire(ring, at=now)
            else:
                steps = [m.plan_destroy(ring, target, at=now)]
        except (KeyTransitionForbidden, KeyNotFound) as exc:
            assert getattr(exc, "code", "key_not_found") in {
                "key_transition_forbidden",
                "rollback_refused",
                "retire_too_early",
                "destroy_refused",
                "active_key_exists",
                "generation_not_newer",
                "key_not_found",
            }
            continue
        ring = m.apply_steps(ring, steps)
        if op == "compromise":
            ever_compromised.add(target)
        # invariants
        for scope in {v.scope for v in ring.values()}:
            actives = [v for v in ring.values() if v.scope == scope and v.state == "ACTIVE"]
            assert len(actives) <= 1, f"two ACTIVE keys in {scope}"
            gens = [v.generation for v in ring.values() if v.scope == scope]
            assert len(gens) == len(set(gens)), "generation reused"
        for kid, v in ring.items():
            old = before.get(kid)
            old_state = old.state if old is not None else m.ABSENT
            if old_state != v.state:
                assert any(
                    src == old_state and dst == v.state for (src, _), dst in m.TRANSITIONS.items()
                ), (old_state, v.state)
            if old is not None and old.state == KeyState.REVOKED:
                assert v.state == KeyState.REVOKED
            if kid in ever_compromised:
                assert v.state == KeyState.REVOKED and v.compromised
            if v.state == KeyState.VERIFY_ONLY:
                assert v.verify_only_until is not None and v.verify_only_at is not None
            if v.material_destroyed_at is not None:
                assert v.state == KeyState.REVOKED


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OPS)
def test_no_sequence_reaches_a_forbidden_state(ops: list[tuple[str, int, int]]) -> None:
    _run(ops)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(STATES[1:]), st.sampled_from(COMMANDS)), max_size=30))
def test_decide_only_moves_along_the_table(seq: list[tuple[str, str]]) -> None:
    view = view_in(KeyState.ACTIVE)
    for _, cmd in seq:
        try:
            events = m.decide(view, command(cmd))
        except KeyTransitionForbidden:
            continue
        assert view is not None
        src = view.state
        for e in events:
            view = evolve(view, e)
        assert view is not None
        assert (src, cmd) in m.TRANSITIONS and view.state == m.TRANSITIONS[(src, cmd)]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.sampled_from([s for s in STATES if s != m.ABSENT]),
            st.sampled_from([None, "sub_a", "sub_b"]),
            st.integers(min_value=1, max_value=4),
        ),
        max_size=12,
    )
)
def test_the_active_key_per_scope_is_what_active_in_answers(
    keys: list[tuple[str, str | None, int]],
) -> None:
    """The ring's index of ACTIVE keys (made once per fold) answers every scope as a scan of
    the whole ring does: the newest ACTIVE generation, or none."""
    import dataclasses

    ring = {}
    for i, (state, sub, gen) in enumerate(keys):
        v = view_in(state)
        assert v is not None
        ring[f"k_{i}"] = dataclasses.replace(
            v,
            key_id=f"k_{i}",
            purpose="engine" if sub is None else "subscription",
            subscription_id=sub,
            generation=gen,
        )
    index = m.active_by_scope(ring)
    scopes = {v.scope for v in ring.values()} | {"engine"}
    for scope in scopes:
        assert index.get(scope) == m.active_in(ring, scope)
