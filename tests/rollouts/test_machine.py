"""The rollout aggregate without a database: the tables row by row, decide, evolve, buckets
and the signing plan the dispatcher records."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hookproof.engine.rollouts.machine import (
    STAGE_TRANSITIONS,
    STATE_TRANSITIONS,
    Advance,
    Create,
    Pause,
    Resume,
    Rollback,
    RolloutForbidden,
    RolloutView,
    ShadowCheck,
    bucket_of,
    decide,
    diagram,
    evolve,
    plan_signing,
)
from hookproof.errors import ValidationError
from hookproof.events.rollout_events import RolloutPaused, RolloutRollbackRefused

T0 = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)
SW, SIG = "standard-webhooks.v1", "hookproof.sig.v1"
SUBS = [f"sub_{i:03d}" for i in range(200)]


def run(view: RolloutView | None, cmd) -> RolloutView:  # type: ignore[no-untyped-def]
    for e in decide(view, cmd):
        view = evolve(view, e)
    assert view is not None
    return view


def created(**over) -> RolloutView:  # type: ignore[no-untyped-def]
    args = dict(
        rollout_id="ro_1",
        target_kind="signatureProfile",
        target=SIG,
        source_key_id="k_old",
        subscriptions=None,
        internal=["sub_000"],
        dual_window_s=600.0,
        at=T0,
    )
    args.update(over)
    return run(None, Create(**args))


def test_bucket_is_the_documented_formula() -> None:
    for s in SUBS:
        assert bucket_of(s) == int.from_bytes(hashlib.sha256(s.encode()).digest()[:2], "big") % 100


@pytest.mark.parametrize("percent", [10, 50, 100])
def test_cutover_switches_exactly_the_buckets_below_the_percent(percent: int) -> None:
    v = run(created(internal=[]), Advance(stage="INTERNAL", percent=None, at=T0))
    v = run(v, Advance(stage="CUTOVER", percent=percent, at=T0))
    switched = {s for s in SUBS if plan_signing([v], s, SW, "ed25519", T0).switched}
    assert switched == {s for s in SUBS if bucket_of(s) < percent}
    assert 0 < len(switched) <= len(SUBS)


def test_percent_only_grows_and_stages_keep_their_order() -> None:
    v = created()
    with pytest.raises(RolloutForbidden) as e:
        run(v, Advance(stage="CUTOVER", percent=10, at=T0))
    assert e.value.code == "rollout_stage_order"
    v = run(v, Advance(stage="INTERNAL", percent=None, at=T0))
    v = run(v, Advance(stage="CUTOVER", percent=50, at=T0))
    for p in (50, 10):
        with pytest.raises(RolloutForbidden) as e:
            run(v, Advance(stage="CUTOVER", percent=p, at=T0))
        assert e.value.code == "rollout_percent_shrinks"
    with pytest.raises(ValidationError):
        run(v, Advance(stage="CUTOVER", percent=101, at=T0))
    v = run(v, Advance(stage="COMPLETE", percent=None, at=T0))
    assert (v.state, v.stage, v.percent) == ("COMPLETE", "COMPLETE", 100)
    with pytest.raises(RolloutForbidden):
        run(v, Advance(stage="CUTOVER", percent=100, at=T0))


def test_state_table_row_by_row() -> None:
    v = created()
    paused = run(v, Pause(reason="operator", at=T0))
    assert paused.state == "PAUSED" and paused.pause_reason == "operator"
    assert decide(paused, Pause(reason="operator", at=T0)) == []  # idempotent
    with pytest.raises(RolloutForbidden):  # no advance while paused
        run(paused, Advance(stage="INTERNAL", percent=None, at=T0))
    with pytest.raises(RolloutForbidden):
        run(v, Resume(at=T0))
    assert run(paused, Resume(at=T0)).state == "RUNNING"
    for state in ("ACTIVE", "VERIFY_ONLY", None):
        assert run(v, Rollback(source_key_state=state, at=T0)).state == "ROLLED_BACK"
    rolled = run(v, Rollback(source_key_state="ACTIVE", at=T0))
    for cmd in (
        Resume(at=T0),
        Pause(reason="x", at=T0),
        Rollback(source_key_state="ACTIVE", at=T0),
    ):
        with pytest.raises(RolloutForbidden):
            run(rolled, cmd)


def test_rollback_refused_when_source_key_revoked_records_and_pauses() -> None:
    v = created()
    events = decide(v, Rollback(source_key_state="REVOKED", at=T0))
    assert [type(e) for e in events] == [RolloutRollbackRefused, RolloutPaused]
    after = run(v, Rollback(source_key_state="REVOKED", at=T0))
    assert (after.state, after.pause_reason) == ("PAUSED", "rollback_refused")
    # already paused (key compromise): refused, stays paused, no second pause
    paused = run(v, Pause(reason="key_compromised", key_id="k_old", at=T0))
    events = decide(paused, Rollback(source_key_state="REVOKED", at=T0))
    assert [type(e) for e in events] == [RolloutRollbackRefused]
    assert (
        run(paused, Rollback(source_key_state="REVOKED", at=T0)).pause_reason == "key_compromised"
    )


def test_signing_plan_by_stage() -> None:
    v = created(internal=["sub_000"])
    p = plan_signing([v], "sub_001", SW, "ed25519", T0)
    assert p.mode == "shadow" and [s.profile for s in p.signers] == [SW]
    assert p.shadow is not None and p.shadow.profile == SIG
    assert p.rollout_version == v.version == 1
    v = run(v, Advance(stage="INTERNAL", percent=None, at=T0))
    assert plan_signing([v], "sub_000", SW, "ed25519", T0).mode == "dual"
    assert plan_signing([v], "sub_001", SW, "ed25519", T0).mode == "baseline"
    # not covered: already on the target, or not listed
    assert plan_signing([v], "sub_001", SIG, "ed25519", T0).rollout_id is None
    listed = created(subscriptions=["sub_005"])
    assert plan_signing([listed], "sub_001", SW, "ed25519", T0).rollout_id is None
    v = run(v, Advance(stage="CUTOVER", percent=100, at=T0))
    dual = plan_signing([v], "sub_001", SW, "ed25519", T0 + timedelta(seconds=599))
    assert dual.mode == "dual" and [s.profile for s in dual.signers] == [SW, SIG]
    # dual signing never outlives the window
    alone = plan_signing([v], "sub_001", SW, "ed25519", T0 + timedelta(seconds=600))
    assert alone.mode == "target" and [s.profile for s in alone.signers] == [SIG]
    back = run(v, Rollback(source_key_state="VERIFY_ONLY", at=T0))
    assert plan_signing([back], "sub_001", SW, "ed25519", T0).mode == "baseline"


def test_key_rollout_signs_with_the_target_key() -> None:
    v = created(target_kind="signingKey", target="k_new")
    v = run(v, Advance(stage="INTERNAL", percent=None, at=T0))
    p = plan_signing([v], "sub_000", SIG, "ed25519", T0)
    assert [(s.profile, s.key) for s in p.signers] == [(SIG, "current"), (SIG, "k_new")]
    assert plan_signing([v], "sub_000", SIG, "hmac-sha256", T0).rollout_id is None


def test_diagram_names_every_row() -> None:
    text = diagram()
    for (src, cmd), dst in STATE_TRANSITIONS.items():
        assert f"| {src} | {cmd} | {dst} |" in text
    for src, dst in STAGE_TRANSITIONS:
        assert f"{src} --> {dst}" in text


COMMANDS = st.one_of(
    st.builds(
        Advance,
        stage=st.sampled_from(["SHADOW", "INTERNAL", "CUTOVER", "COMPLETE", "X"]),
        percent=st.one_of(st.none(), st.integers(-5, 120)),
        at=st.just(T0),
    ),
    st.builds(Pause, reason=st.just("operator"), at=st.just(T0)),
    st.builds(Resume, at=st.just(T0)),
    st.builds(
        Rollback,
        source_key_state=st.sampled_from([None, "ACTIVE", "VERIFY_ONLY", "REVOKED"]),
        at=st.just(T0),
    ),
    st.builds(ShadowCheck, checked=st.integers(0, 5), mismatches=st.just(0), at=st.just(T0)),
)


@given(st.lists(COMMANDS, max_size=12))
def test_any_command_sequence_keeps_the_invariants(cmds: list) -> None:  # type: ignore[type-arg]
    v = created()
    for cmd in cmds:
        before = v
        try:
            v = run(v, cmd)
        except (RolloutForbidden, ValidationError):
            assert v is before
            continue
        assert v.percent >= before.percent or v.state == "ROLLED_BACK"
        assert v.state in ("RUNNING", "PAUSED", "ROLLED_BACK", "COMPLETE")
        if before.state == "ROLLED_BACK":
            assert v.state == "ROLLED_BACK"


@given(
    st.lists(st.integers(1, 100), min_size=1, max_size=6),
    st.integers(0, 7200),
    st.floats(0, 3600),
)
def test_switched_sets_only_grow_and_dual_never_outlives_the_window(
    percents: list[int], later_s: int, window: float
) -> None:
    v = run(
        created(internal=[], dual_window_s=window), Advance(stage="INTERNAL", percent=None, at=T0)
    )
    previous: set[str] = set()
    step = 0
    for p in sorted(set(percents)):
        step += 1
        at = T0 + timedelta(seconds=step)
        v = run(v, Advance(stage="CUTOVER", percent=p, at=at))
        now = at + timedelta(seconds=later_s)
        plans = {s: plan_signing([v], s, SW, "ed25519", now) for s in SUBS[:50]}
        switched = {s for s, pl in plans.items() if pl.switched}
        assert previous <= switched == {s for s in SUBS[:50] if bucket_of(s) < p}
        for s, pl in plans.items():
            if pl.mode == "dual":
                since = datetime.fromisoformat(v.switched_at(s) or "")
                assert now < since + timedelta(seconds=window)
        previous = switched


def test_complete_freezes_the_covered_list_and_survives_the_profile_write_back() -> None:
    v = run(created(internal=[]), Advance(stage="INTERNAL", percent=None, at=T0))
    v = run(v, Advance(stage="CUTOVER", percent=10, at=T0))
    later = T0 + timedelta(seconds=100)
    v = run(v, Advance(stage="COMPLETE", percent=None, at=later, covered=["sub_001", "sub_002"]))
    assert v.subscriptions == ("sub_001", "sub_002")
    # written back to the target profile: still dual within the window of its switch
    p = plan_signing([v], "sub_001", SIG, "ed25519", later + timedelta(seconds=10))
    assert p.mode == "dual" and [s.profile for s in p.signers] == [SW, SIG]
    p = plan_signing([v], "sub_001", SIG, "ed25519", later + timedelta(seconds=700))
    assert p.mode == "target" and [s.profile for s in p.signers] == [SIG]
    # a subscription made after COMPLETE is never covered
    assert plan_signing([v], "sub_new", SW, "ed25519", later).rollout_id is None


@pytest.mark.parametrize("window", [1e308, -1.0, 7_776_001.0])
def test_a_recorded_window_outside_the_bound_is_read_within_it(window: float) -> None:
    """Issue 46: a ``dualWindowS`` of 1e308 recorded before the API bounded it overflowed the
    ``timedelta`` of every claim that signed for the rollout's subscriptions."""
    from hookproof.events.rollout_events import RolloutCreated
    from hookproof.schemas.numbers import DUAL_WINDOW_MAX_S

    view = evolve(
        None,
        RolloutCreated(
            rollout_id="ro_" + "0" * 20,
            target_kind="signatureProfile",
            target="standard-webhooks.v1",
            source_key_id=None,
            subscriptions=None,
            internal=[],
            dual_window_s=window,
            at="2026-01-01T00:00:00+00:00",
        ),
    )
    assert 0 <= view.dual_window_s <= DUAL_WINDOW_MAX_S
    assert datetime(2026, 1, 1, tzinfo=UTC) + timedelta(seconds=view.dual_window_s)
