"""Rollouts of a signing change: the transition tables, a pure ``decide`` and ``evolve``, and
the pure signing plan the dispatcher records at admission. No I/O.

Two tables say everything that may happen: ``STATE_TRANSITIONS`` ((state, command) -> state)
and ``STAGE_TRANSITIONS`` ((stage, next stage) pairs an ``advance`` may take; CUTOVER ->
CUTOVER only with a larger percent). ``decide`` consults them; ``diagram`` draws them.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Final

from hookproof.errors import ConflictError, ValidationError
from hookproof.events import Event
from hookproof.events.rollout_events import (
    RolloutAdvanced,
    RolloutCreated,
    RolloutPaused,
    RolloutResumed,
    RolloutRollbackRefused,
    RolloutRolledBack,
    RolloutShadowChecked,
)
from hookproof.schemas.numbers import DUAL_WINDOW_MAX_S

__all__ = [
    "ABSENT",
    "CURRENT",
    "PROFILE_TARGET",
    "STAGES",
    "STAGE_TRANSITIONS",
    "STATES",
    "STATE_TRANSITIONS",
    "Advance",
    "Create",
    "Pause",
    "Resume",
    "Rollback",
    "RolloutForbidden",
    "RolloutView",
    "ShadowCheck",
    "SignerRef",
    "SigningPlan",
    "bucket_of",
    "decide",
    "diagram",
    "evolve",
    "fold",
    "plan_signing",
]

ABSENT: Final = "ABSENT"
STAGES: Final = ("SHADOW", "INTERNAL", "CUTOVER", "COMPLETE")
STATES: Final = ("RUNNING", "PAUSED", "ROLLED_BACK", "COMPLETE")
PROFILE_TARGET: Final = "signatureProfile"
KEY_TARGET: Final = "signingKey"
CURRENT: Final = "current"  # "the key the ring signs this subscription with now"
_PROFILES: Final = ("hookproof.sig.v1", "standard-webhooks.v1")
_ROLLBACK_OK: Final = ("ACTIVE", "VERIFY_ONLY")

# (state, command) -> state. Everything not listed is forbidden.
STATE_TRANSITIONS: Final[dict[tuple[str, str], str]] = {
    (ABSENT, "create"): "RUNNING",
    ("RUNNING", "advance"): "RUNNING",
    ("RUNNING", "complete"): "COMPLETE",
    ("RUNNING", "pause"): "PAUSED",
    ("PAUSED", "pause"): "PAUSED",  # idempotent (an automatic check may repeat it)
    ("PAUSED", "resume"): "RUNNING",
    ("RUNNING", "rollback"): "ROLLED_BACK",
    ("PAUSED", "rollback"): "ROLLED_BACK",
    ("COMPLETE", "rollback"): "ROLLED_BACK",
    ("RUNNING", "refuse_rollback"): "PAUSED",
    ("PAUSED", "refuse_rollback"): "PAUSED",
    ("COMPLETE", "refuse_rollback"): "COMPLETE",
    ("RUNNING", "shadow_check"): "RUNNING",
    ("PAUSED", "shadow_check"): "PAUSED",
}

_WHY: Final[dict[tuple[str, str], str]] = {
    (ABSENT, "create"): "stage SHADOW: target signed and verified beside the live path",
    ("RUNNING", "advance"): "next stage (see the stage table)",
    ("RUNNING", "complete"): "advance to COMPLETE: every covered subscription switched",
    ("RUNNING", "pause"): "operator, acceptance below 99.95% of baseline, or key compromise",
    ("PAUSED", "pause"): "already paused: nothing recorded",
    ("PAUSED", "resume"): "operator",
    ("RUNNING", "rollback"): "source key still ACTIVE or VERIFY_ONLY",
    ("PAUSED", "rollback"): "source key still ACTIVE or VERIFY_ONLY",
    ("COMPLETE", "rollback"): "source key still ACTIVE or VERIFY_ONLY",
    ("RUNNING", "refuse_rollback"): "source key revoked: `rollback_refused`, paused",
    ("PAUSED", "refuse_rollback"): "source key revoked: `rollback_refused`, stays paused",
    ("COMPLETE", "refuse_rollback"): "source key revoked: `rollback_refused`",
    ("RUNNING", "shadow_check"): "shadow signatures counted",
    ("PAUSED", "shadow_check"): "shadow signatures counted",
}

# (stage, next stage) an advance may take. CUTOVER -> CUTOVER only with a larger percent.
STAGE_TRANSITIONS: Final[dict[tuple[str, str], str]] = {
    ("SHADOW", "INTERNAL"): "internal subscriptions get both signatures",
    ("INTERNAL", "CUTOVER"): "buckets below the percent switched",
    ("CUTOVER", "CUTOVER"): "percent only grows",
    ("CUTOVER", "COMPLETE"): "every bucket switched",
}


class RolloutForbidden(ConflictError):
    """A command the tables (or a guard) do not allow; ``code`` says which rule."""

    code = "rollout_transition_forbidden"


def bucket_of(subscription_id: str) -> int:
    """``int.from_bytes(sha256(id as UTF-8)[:2], "big") % 100``."""
    return int.from_bytes(hashlib.sha256(subscription_id.encode()).digest()[:2], "big") % 100


# -- the aggregate ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RolloutView:
    rollout_id: str
    target_kind: str
    target: str
    source_key_id: str | None
    subscriptions: tuple[str, ...] | None
    internal: frozenset[str]
    dual_window_s: float
    created_at: str
    state: str = "RUNNING"
    stage: str = "SHADOW"
    percent: int = 0
    switches: tuple[tuple[int, str], ...] = ()  # (percent reached, at), in order
    pause_reason: str | None = None
    shadow_checked: int = 0
    shadow_mismatches: int = 0
    version: int = 0
    updated_at: str = ""

    @property
    def source_profile(self) -> str | None:
        """For a profile rollout: the profile subscriptions move away from."""
        if self.target_kind != PROFILE_TARGET:
            return None
        return next(p for p in _PROFILES if p != self.target)

    def covers(self, subscription_id: str, profile: str, algorithm: str) -> bool:
        if self.subscriptions is not None and subscription_id not in self.subscriptions:
            return False
        if self.target_kind == PROFILE_TARGET:
            # at COMPLETE the covered list is frozen and their profile written back
            return self.stage == "COMPLETE" or profile == self.source_profile
        return algorithm == "ed25519"  # engine keys sign only ed25519 subscriptions

    def switched_at(self, subscription_id: str) -> str | None:
        """When the subscription's bucket was switched (None: not switched)."""
        b = bucket_of(subscription_id)
        for percent, at in self.switches:
            if b < percent:
                return at
        return None


def evolve(view: RolloutView | None, event: Event, version: int | None = None) -> RolloutView:
    if isinstance(event, RolloutCreated):
        v = RolloutView(
            rollout_id=event.rollout_id,
            target_kind=event.target_kind,
            target=event.target,
            source_key_id=event.source_key_id,
            subscriptions=tuple(event.subscriptions) if event.subscriptions is not None else None,
            internal=frozenset(event.internal),
            # within the API's bound (schemas/numbers.py): a window recorded before it (1e308)
            # would overflow every claim's timedelta for the rollout's subscriptions
            dual_window_s=min(DUAL_WINDOW_MAX_S, max(0.0, event.dual_window_s)),
            created_at=event.at,
            updated_at=event.at,
        )
    else:
        if view is None:
            raise ValueError(f"{event.type} before rollout.created")
        v = view
        if isinstance(event, RolloutAdvanced):
            switches = v.switches
            if event.stage in ("CUTOVER", "COMPLETE"):
                switches = (*switches, (event.percent, event.at))
            state = "COMPLETE" if event.stage == "COMPLETE" else v.state
            subs = tuple(event.covered) if event.covered is not None else v.subscriptions
            v = replace(
                v,
                stage=event.stage,
                percent=event.percent,
                switches=switches,
                state=state,
                subscriptions=subs,
            )
        elif isinstance(event, RolloutPaused):
            v = replace(v, state="PAUSED", pause_reason=event.reason)
        elif isinstance(event, RolloutResumed):
            v = replace(v, state="RUNNING", pause_reason=None)
        elif isinstance(event, RolloutRolledBack):
            v = replace(v, state="ROLLED_BACK")
        elif isinstance(event, RolloutRollbackRefused):
            pass  # the pause that goes with it is its own event
        elif isinstance(event, RolloutShadowChecked):
            v = replace(
                v,
                shadow_checked=v.shadow_checked + event.checked,
                shadow_mismatches=v.shadow_mismatches + event.mismatches,
            )
        at = getattr(event, "at", v.updated_at)
        v = replace(v, updated_at=at)
    return replace(v, version=version if version is not None else v.version + 1)


def fold(events: list[Event]) -> RolloutView | None:
    view: RolloutView | None = None
    for e in events:
        view = evolve(view, e)
    return view


# -- commands -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Create:
    rollout_id: str
    target_kind: str
    target: str
    source_key_id: str | None
    subscriptions: list[str] | None
    internal: list[str]
    dual_window_s: float
    at: datetime


@dataclass(frozen=True, slots=True, kw_only=True)
class Advance:
    stage: str
    percent: int | None
    at: datetime
    covered: list[str] | None = None  # COMPLETE of an "all" rollout: who it covers, frozen


@dataclass(frozen=True, slots=True, kw_only=True)
class Pause:
    reason: str
    at: datetime
    key_id: str | None = None
    acceptance: float | None = None
    baseline_acceptance: float | None = None
    attempts: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Resume:
    at: datetime


@dataclass(frozen=True, slots=True, kw_only=True)
class Rollback:
    """``source_key_state``: the ring's state of the rollout's source key now (None when the
    rollout has no source key)."""

    source_key_state: str | None
    at: datetime


@dataclass(frozen=True, slots=True, kw_only=True)
class ShadowCheck:
    checked: int
    mismatches: int
    reasons: dict[str, int] = field(default_factory=dict)
    at: datetime


Command = Create | Advance | Pause | Resume | Rollback | ShadowCheck


def _allowed(state: str, command: str) -> str:
    nxt = STATE_TRANSITIONS.get((state, command))
    if nxt is None:
        raise RolloutForbidden(
            f"{command} is not allowed in state {state}",
            code="rollout_state_forbids",
            state=state,
            command=command,
        )
    return nxt


def _advance(view: RolloutView, cmd: Advance) -> list[Event]:
    stage = cmd.stage
    if stage not in STAGES:
        raise ValidationError(f"stage must be one of {', '.join(STAGES[1:])}", field="stage")
    if (view.stage, stage) not in STAGE_TRANSITIONS:
        raise RolloutForbidden(
            f"cannot go from {view.stage} to {stage}",
            code="rollout_stage_order",
            stage=view.stage,
        )
    _allowed(view.state, "complete" if stage == "COMPLETE" else "advance")
    if stage == "CUTOVER":
        p = cmd.percent
        if p is None or not 1 <= p <= 100:
            raise ValidationError("CUTOVER needs a percent in 1..100", field="percent")
        if p <= view.percent:
            raise RolloutForbidden(
                f"percent only grows (now {view.percent})",
                code="rollout_percent_shrinks",
                percent=view.percent,
            )
        percent = p
    else:
        if cmd.percent is not None and not (stage == "COMPLETE" and cmd.percent == 100):
            raise ValidationError(f"{stage} takes no percent", field="percent")
        percent = 100 if stage == "COMPLETE" else 0
    return [
        RolloutAdvanced(
            rollout_id=view.rollout_id,
            from_stage=view.stage,
            stage=stage,
            from_percent=view.percent,
            percent=percent,
            at=cmd.at.isoformat(),
            covered=(
                sorted(set(cmd.covered))
                if stage == "COMPLETE" and cmd.covered is not None
                else None
            ),
        )
    ]


def decide(view: RolloutView | None, cmd: Command) -> list[Event]:
    """The events a command appends, or ``RolloutForbidden`` / ``ValidationError``.

    A rollback whose source key is neither ACTIVE nor VERIFY_ONLY is not an error here: it
    records ``rollout.rollback_refused`` (and a pause when RUNNING); the caller answers
    ``rollback_refused`` after appending them.
    """
    if isinstance(cmd, Create):
        if view is not None:
            raise RolloutForbidden("rollout exists", code="rollout_exists")
        _allowed(ABSENT, "create")
        if cmd.target_kind not in (PROFILE_TARGET, KEY_TARGET):
            raise ValidationError("target is signatureProfile or signingKey", field="target")
        if cmd.target_kind == PROFILE_TARGET and cmd.target not in _PROFILES:
            raise ValidationError(
                f"signatureProfile must be one of {', '.join(_PROFILES)}",
                field="target.signatureProfile",
            )
        if cmd.subscriptions is not None and not cmd.subscriptions:
            raise ValidationError('subscriptions: a non-empty list or "all"', field="subscriptions")
        return [
            RolloutCreated(
                rollout_id=cmd.rollout_id,
                target_kind=cmd.target_kind,
                target=cmd.target,
                source_key_id=cmd.source_key_id,
                subscriptions=sorted(set(cmd.subscriptions)) if cmd.subscriptions else None,
                internal=sorted(set(cmd.internal)),
                dual_window_s=cmd.dual_window_s,
                at=cmd.at.isoformat(),
            )
        ]
    if view is None:
        raise RolloutForbidden("no such rollout", code="rollout_not_found")
    at = cmd.at.isoformat()
    if isinstance(cmd, Advance):
        return _advance(view, cmd)
    if isinstance(cmd, Pause):
        _allowed(view.state, "pause")
        if view.state == "PAUSED":
            return []
        return [
            RolloutPaused(
                rollout_id=view.rollout_id,
                reason=cmd.reason,
                key_id=cmd.key_id,
                acceptance=cmd.acceptance,
                baseline_acceptance=cmd.baseline_acceptance,
                attempts=cmd.attempts,
                at=at,
            )
        ]
    if isinstance(cmd, Resume):
        _allowed(view.state, "resume")
        return [RolloutResumed(rollout_id=view.rollout_id, at=at)]
    if isinstance(cmd, Rollback):
        if cmd.source_key_state is None or cmd.source_key_state in _ROLLBACK_OK:
            _allowed(view.state, "rollback")
            return [
                RolloutRolledBack(
                    rollout_id=view.rollout_id,
                    from_stage=view.stage,
                    source_key_id=view.source_key_id,
                    source_key_state=cmd.source_key_state,
                    at=at,
                )
            ]
        nxt = _allowed(view.state, "refuse_rollback")
        out: list[Event] = [
            RolloutRollbackRefused(
                rollout_id=view.rollout_id,
                source_key_id=view.source_key_id,
                source_key_state=cmd.source_key_state,
                at=at,
            )
        ]
        if nxt == "PAUSED" and view.state != "PAUSED":
            out.append(
                RolloutPaused(
                    rollout_id=view.rollout_id,
                    reason="rollback_refused",
                    key_id=view.source_key_id,
                    at=at,
                )
            )
        return out
    if isinstance(cmd, ShadowCheck):
        _allowed(view.state, "shadow_check")
        if cmd.checked <= 0:
            return []
        return [
            RolloutShadowChecked(
                rollout_id=view.rollout_id,
                checked=cmd.checked,
                mismatches=cmd.mismatches,
                reasons=dict(cmd.reasons),
                at=at,
            )
        ]
    raise TypeError(f"unknown command {cmd!r}")


# -- what to sign -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SignerRef:
    """A signature to make: a profile and a key (``current``: the ring's signing key for the
    subscription now; otherwise a key id)."""

    profile: str
    key: str = CURRENT

    def label(self) -> str:
        return self.profile if self.key == CURRENT else f"{self.profile}@{self.key}"


@dataclass(frozen=True, slots=True)
class SigningPlan:
    """``mode``: ``baseline`` (no rollout applies), ``shadow`` (live unchanged; ``shadow``
    made and verified beside it), ``dual`` (both on the wire), ``target`` (target alone)."""

    mode: str
    signers: tuple[SignerRef, ...]
    shadow: SignerRef | None = None
    rollout_id: str | None = None
    rollout_version: int | None = None
    stage: str | None = None

    @property
    def switched(self) -> bool:
        return self.mode in ("dual", "target")


def _parse(at: str) -> datetime:
    return datetime.fromisoformat(at)


def plan_signing(
    views: list[RolloutView],
    subscription_id: str,
    profile: str,
    algorithm: str,
    now: datetime,
) -> SigningPlan:
    """What a delivery to this subscription is signed with now, given the rollouts.

    The first rollout (oldest) that covers the subscription and has not been rolled back
    decides. Dual signing lasts ``dual_window_s`` from the subscription's switch time, never
    longer.
    """
    baseline = SigningPlan("baseline", (SignerRef(profile),))
    for v in sorted(views, key=lambda v: v.created_at):
        if v.state == "ROLLED_BACK" or not v.covers(subscription_id, profile, algorithm):
            continue
        if v.target_kind == PROFILE_TARGET:
            assert v.source_profile is not None
            source, target = SignerRef(v.source_profile), SignerRef(v.target)
        else:
            source, target = SignerRef(profile), SignerRef(profile, v.target)
        ident: dict[str, Any] = {
            "rollout_id": v.rollout_id,
            "rollout_version": v.version,
            "stage": v.stage,
        }
        if v.stage == "SHADOW":
            return SigningPlan("shadow", (source,), shadow=target, **ident)
        switched = v.switched_at(subscription_id)
        if switched is None:
            if v.stage in ("INTERNAL", "CUTOVER") and subscription_id in v.internal:
                return SigningPlan("dual", (source, target), **ident)
            return SigningPlan("baseline", (source,), **ident)
        if v.target_kind == KEY_TARGET and v.stage == "COMPLETE":
            return SigningPlan("target", (target,), **ident)  # promoted: the ring's key now
        if now < _parse(switched) + timedelta(seconds=v.dual_window_s):
            return SigningPlan("dual", (source, target), **ident)
        return SigningPlan("target", (target,), **ident)
    return baseline


# -- docs ---------------------------------------------------------------------------------


def diagram() -> str:
    """Markdown: the state diagram and the stage table, drawn from the tables."""
    lines = ["```mermaid", "stateDiagram-v2", "    [*] --> RUNNING: create"]
    for (src, cmd), dst in sorted(STATE_TRANSITIONS.items()):
        if src == ABSENT or src == dst:
            continue
        lines.append(f"    {src} --> {dst}: {cmd}")
    lines += ["    ROLLED_BACK --> [*]", "```", "", "| state | command | next | why |"]
    lines.append("| --- | --- | --- | --- |")
    for (src, cmd), dst in STATE_TRANSITIONS.items():
        lines.append(f"| {src} | {cmd} | {dst} | {_WHY[(src, cmd)]} |")
    lines += ["", "Stages (`advance`):", "", "```mermaid", "stateDiagram-v2"]
    lines.append("    [*] --> SHADOW: create")
    for (src, dst), why in STAGE_TRANSITIONS.items():
        lines.append(f"    {src} --> {dst}: {why}")
    lines += ["    COMPLETE --> [*]", "```", ""]
    return "\n".join(lines)
