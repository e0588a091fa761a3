"""The key life cycle as one transition table, a pure ``decide`` and pure ring planners.

``TRANSITIONS`` is the single place that says which command moves a key from which state to
which state. ``decide(view, command)`` consults it (plus a few guards that need a clock value
carried by the command) and returns the events to append, or raises
:class:`KeyTransitionForbidden` with a stable code. ``docs()`` draws the same table.

The ``plan_*`` functions decide for the ring as a whole (one ACTIVE key per scope, monotonic
generations, the previous ACTIVE key going VERIFY_ONLY with its deadline) and return
:class:`Step` values: which stream, at which expected version, gets which events. No I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from hookproof.config import Settings
from hookproof.events import Event
from hookproof.events import key_events as ke
from hookproof.events.key_events import KeyState, RevokeReason
from hookproof.projections.key_ring import KeyView, evolve, scope_of

from .errors import KeyNotFound, KeyTransitionForbidden

__all__ = [
    "ABSENT",
    "TRANSITIONS",
    "Activate",
    "Command",
    "Create",
    "Destroy",
    "Retire",
    "Revoke",
    "Rollback",
    "Step",
    "Supersede",
    "Windows",
    "active_by_scope",
    "apply_steps",
    "decide",
    "docs",
    "plan_compromise",
    "plan_create",
    "plan_destroy",
    "plan_promote",
    "plan_retire",
    "plan_rollback",
]

ABSENT: Final = "ABSENT"  # pseudo state of a key that does not exist yet

# (state, command) -> state. Everything not listed is forbidden.
TRANSITIONS: Final[dict[tuple[str, str], str]] = {
    (ABSENT, "publish"): KeyState.NOT_BEFORE,
    (ABSENT, "create_active"): KeyState.ACTIVE,
    (KeyState.NOT_BEFORE, "activate"): KeyState.ACTIVE,
    (KeyState.NOT_BEFORE, "revoke"): KeyState.REVOKED,
    (KeyState.ACTIVE, "supersede"): KeyState.VERIFY_ONLY,
    (KeyState.ACTIVE, "revoke"): KeyState.REVOKED,
    (KeyState.VERIFY_ONLY, "retire"): KeyState.REVOKED,
    (KeyState.VERIFY_ONLY, "revoke"): KeyState.REVOKED,
    (KeyState.VERIFY_ONLY, "rollback"): KeyState.ACTIVE,
    (KeyState.REVOKED, "destroy"): KeyState.REVOKED,
}

# Why each row exists (rendered by docs()).
_WHY: Final[dict[tuple[str, str], str]] = {
    (ABSENT, "publish"): "next key published (JWKS / handed over), not used to sign",
    (ABSENT, "create_active"): "first key of a scope",
    (KeyState.NOT_BEFORE, "activate"): "promote: signing switches to it",
    (KeyState.NOT_BEFORE, "revoke"): "withdrawn or compromised before use",
    (KeyState.ACTIVE, "supersede"): "a newer key became ACTIVE; deadline recorded",
    (KeyState.ACTIVE, "revoke"): "compromise: at once",
    (KeyState.VERIFY_ONLY, "retire"): "deadline passed",
    (KeyState.VERIFY_ONLY, "revoke"): "compromise: at once",
    (KeyState.VERIFY_ONLY, "rollback"): "back to a generation never revoked, before its deadline",
    (KeyState.REVOKED, "destroy"): "material erased (crypto-shredding); log intact",
}


@dataclass(frozen=True, slots=True)
class Windows:
    """The three numbers whose sum is the VERIFY_ONLY window (recorded in the event)."""

    max_queue_delay_s: float
    max_retry_window_s: float
    clock_skew_s: float

    @classmethod
    def from_settings(cls, settings: Settings) -> Windows:
        return cls(settings.max_queue_delay_s, settings.max_retry_window_s, settings.clock_skew_s)

    @property
    def total_s(self) -> float:
        return self.max_queue_delay_s + self.max_retry_window_s + self.clock_skew_s


# -- commands ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Create:
    key_id: str
    algorithm: str
    purpose: str
    subscription_id: str | None
    generation: int
    public_key: str | None
    max_message_lifetime_s: int
    at: datetime
    active: bool = False

    @property
    def name(self) -> str:
        return "create_active" if self.active else "publish"


@dataclass(frozen=True, slots=True, kw_only=True)
class Activate:
    at: datetime
    previous_key_id: str | None = None
    name: str = "activate"


@dataclass(frozen=True, slots=True, kw_only=True)
class Supersede:
    at: datetime
    windows: Windows
    superseded_by: str | None = None
    name: str = "supersede"


@dataclass(frozen=True, slots=True, kw_only=True)
class Retire:
    at: datetime
    name: str = "retire"


@dataclass(frozen=True, slots=True, kw_only=True)
class Revoke:
    at: datetime
    reason: RevokeReason = RevokeReason.COMPROMISED
    name: str = "revoke"


@dataclass(frozen=True, slots=True, kw_only=True)
class Rollback:
    at: datetime
    replaces_key_id: str | None = None
    name: str = "rollback"


@dataclass(frozen=True, slots=True, kw_only=True)
class Destroy:
    at: datetime
    name: str = "destroy"


Command = Create | Activate | Supersede | Retire | Revoke | Rollback | Destroy

_REFUSAL_CODE: Final[dict[str, str]] = {
    "rollback": "rollback_refused",
    "destroy": "destroy_refused",
}


def _state(view: KeyView | None) -> str:
    return ABSENT if view is None else str(view.state)


def decide(view: KeyView | None, command: Command) -> list[Event]:
    """The events ``command`` produces for the key ``view`` (None: not created yet).

    Raises KeyTransitionForbidden when the table has no row for (state, command) or a guard
    refuses (a rollback past the deadline, a retirement before it).
    """
    state = _state(view)
    kid = view.key_id if view is not None else getattr(command, "key_id", "?")
    if (state, command.name) not in TRANSITIONS:
        code = _REFUSAL_CODE.get(command.name, "key_transition_forbidden")
        raise KeyTransitionForbidden(
            f"key {kid}: {command.name} is not allowed in state {state}",
            code=code,
            key_id=kid,
            state=state,
            command=command.name,
        )
    if isinstance(command, Create):
        return [
            ke.KeyCreated(
                key_id=command.key_id,
                algorithm=command.algorithm,
                purpose=command.purpose,
                subscription_id=command.subscription_id,
                generation=command.generation,
                state=KeyState(TRANSITIONS[(state, command.name)]),
                public_key=command.public_key,
                max_message_lifetime_s=command.max_message_lifetime_s,
                created_at=command.at,
                activated_at=command.at if command.active else None,
            )
        ]
    assert view is not None
    if isinstance(command, Activate):
        return [ke.KeyActivated(key_id=kid, at=command.at, previous_key_id=command.previous_key_id)]
    if isinstance(command, Supersede):
        w = command.windows
        return [
            ke.KeySuperseded(
                key_id=kid,
                at=command.at,
                superseded_by=command.superseded_by,
                verify_only_until=command.at + timedelta(seconds=w.total_s),
                max_queue_delay_s=w.max_queue_delay_s,
                max_retry_window_s=w.max_retry_window_s,
                clock_skew_s=w.clock_skew_s,
            )
        ]
    if isinstance(command, Retire):
        until = view.verify_only_until
        if until is not None and command.at < until:
            raise KeyTransitionForbidden(
                f"key {kid}: VERIFY_ONLY until {until.isoformat()}",
                code="retire_too_early",
                key_id=kid,
                state=state,
                command=command.name,
            )
        return [
            ke.KeyRevoked(
                key_id=kid, at=command.at, reason=RevokeReason.RETIRED, previous_state=view.state
            )
        ]
    if isinstance(command, Revoke):
        if command.reason is RevokeReason.RETIRED:
            raise KeyTransitionForbidden(
                f"key {kid}: retirement goes through retire",
                key_id=kid,
                state=state,
                command=command.name,
            )
        return [
            ke.KeyRevoked(
                key_id=kid, at=command.at, reason=command.reason, previous_state=view.state
            )
        ]
    if isinstance(command, Rollback):
        until = view.verify_only_until
        if until is not None and command.at >= until:
            raise KeyTransitionForbidden(
                f"key {kid}: its VERIFY_ONLY window ended at {until.isoformat()}",
                code="rollback_refused",
                key_id=kid,
                state=state,
                command=command.name,
            )
        return [
            ke.KeyRolledBack(key_id=kid, at=command.at, replaces_key_id=command.replaces_key_id)
        ]
    if isinstance(command, Destroy):
        if view.material_destroyed_at is not None:
            return []
        return [ke.KeyMaterialDestroyed(key_id=kid, at=command.at)]
    raise AssertionError(f"unhandled command {command!r}")


def docs() -> str:
    """The transition table as a mermaid state diagram followed by a plain-text table."""
    lines = ["```mermaid", "stateDiagram-v2"]
    for (src, cmd), dst in TRANSITIONS.items():
        left = "[*]" if src == ABSENT else str(src)
        lines.append(f"    {left} --> {dst}: {cmd}")
    lines += ["```", "", "| from | command | to | why |", "|---|---|---|---|"]
    for (src, cmd), dst in TRANSITIONS.items():
        lines.append(f"| {src} | {cmd} | {dst} | {_WHY[(src, cmd)]} |")
    lines += [
        "",
        "Any other (state, command) pair is refused with `key_transition_forbidden`",
        "(`rollback_refused` for a rollback, `destroy_refused` for a destroy).",
    ]
    return "\n".join(lines) + "\n"


# -- the ring ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Step:
    """Events for one key stream at an expected version (0: the stream must not exist)."""

    key_id: str
    expected_version: int
    events: tuple[Event, ...]


def _get(ring: Mapping[str, KeyView], key_id: str) -> KeyView:
    view = ring.get(key_id)
    if view is None:
        raise KeyNotFound(f"key {key_id} not found", key_id=key_id)
    return view


def _step(view: KeyView | None, key_id: str, command: Command) -> Step:
    events = decide(view, command)
    return Step(key_id, view.version if view is not None else 0, tuple(events))


def active_in(ring: Mapping[str, KeyView], scope: str) -> KeyView | None:
    found = [v for v in ring.values() if v.scope == scope and v.state is KeyState.ACTIVE]
    return max(found, key=lambda v: v.generation) if found else None


def active_by_scope(ring: Mapping[str, KeyView]) -> dict[str, KeyView]:
    """Per scope, what :func:`active_in` answers for it (one pass over the ring)."""
    out: dict[str, KeyView] = {}
    for v in ring.values():
        if v.state is KeyState.ACTIVE:
            cur = out.get(v.scope)
            if cur is None or v.generation > cur.generation:
                out[v.scope] = v
    return out


def next_generation(ring: Mapping[str, KeyView], scope: str) -> int:
    return max((v.generation for v in ring.values() if v.scope == scope), default=0) + 1


def plan_create(
    ring: Mapping[str, KeyView],
    *,
    key_id: str,
    algorithm: str,
    purpose: str,
    subscription_id: str | None,
    public_key: str | None,
    max_message_lifetime_s: int,
    at: datetime,
    active: bool,
) -> Step:
    """A new key in its scope with the next generation: ACTIVE only if the scope has none."""
    if key_id in ring:
        raise KeyTransitionForbidden(f"key {key_id} already exists", key_id=key_id)
    scope = scope_of(purpose, subscription_id)
    if active and active_in(ring, scope) is not None:
        raise KeyTransitionForbidden(
            f"scope {scope} already has an ACTIVE key; publish and promote instead",
            code="active_key_exists",
        )
    command = Create(
        key_id=key_id,
        algorithm=algorithm,
        purpose=purpose,
        subscription_id=subscription_id,
        generation=next_generation(ring, scope),
        public_key=public_key,
        max_message_lifetime_s=max_message_lifetime_s,
        at=at,
        active=active,
    )
    return _step(None, key_id, command)


def plan_promote(
    ring: Mapping[str, KeyView], key_id: str, *, at: datetime, windows: Windows
) -> list[Step]:
    """NOT_BEFORE ``key_id`` -> ACTIVE; the scope's ACTIVE key -> VERIFY_ONLY with deadline."""
    target = _get(ring, key_id)
    current = active_in(ring, target.scope)
    if (
        target.state is KeyState.NOT_BEFORE
        and current is not None
        and current.generation > target.generation
    ):
        raise KeyTransitionForbidden(
            f"key {key_id} (generation {target.generation}) is older than the ACTIVE "
            f"generation {current.generation}",
            code="generation_not_newer",
            key_id=key_id,
        )
    steps = [_step(target, key_id, Activate(at=at, previous_key_id=_kid(current)))]
    if current is not None:
        steps.append(
            _step(current, current.key_id, Supersede(at=at, windows=windows, superseded_by=key_id))
        )
    return steps


def _kid(view: KeyView | None) -> str | None:
    return view.key_id if view is not None else None


def plan_rollback(
    ring: Mapping[str, KeyView], key_id: str, *, at: datetime, windows: Windows
) -> list[Step]:
    """VERIFY_ONLY ``key_id`` (never revoked, before its deadline) -> ACTIVE; the scope's
    ACTIVE key -> VERIFY_ONLY. A compromised or retired key is refused (pause instead)."""
    target = _get(ring, key_id)
    current = active_in(ring, target.scope)
    steps = [_step(target, key_id, Rollback(at=at, replaces_key_id=_kid(current)))]
    if current is not None:
        steps.append(
            _step(current, current.key_id, Supersede(at=at, windows=windows, superseded_by=key_id))
        )
    return steps


def plan_compromise(ring: Mapping[str, KeyView], key_id: str, *, at: datetime) -> Step:
    """Revoke at once, whatever the state (REVOKED stays REVOKED: refused)."""
    return _step(_get(ring, key_id), key_id, Revoke(at=at, reason=RevokeReason.COMPROMISED))


def plan_abandon(ring: Mapping[str, KeyView], key_id: str, *, at: datetime) -> Step:
    """Withdraw a NOT_BEFORE key that will not be promoted."""
    view = _get(ring, key_id)
    if view.state is not KeyState.NOT_BEFORE:
        raise KeyTransitionForbidden(
            f"key {key_id}: only a NOT_BEFORE key can be abandoned (state {view.state})",
            key_id=key_id,
            state=str(view.state),
            command="revoke",
        )
    return _step(view, key_id, Revoke(at=at, reason=RevokeReason.ABANDONED))


def plan_retire(ring: Mapping[str, KeyView], *, at: datetime) -> list[Step]:
    """Every VERIFY_ONLY key whose deadline has passed -> REVOKED (reason ``retired``)."""
    return [
        _step(v, v.key_id, Retire(at=at))
        for v in sorted(ring.values(), key=lambda v: (v.scope, v.generation))
        if v.state is KeyState.VERIFY_ONLY
        and v.verify_only_until is not None
        and v.verify_only_until <= at
    ]


def plan_destroy(ring: Mapping[str, KeyView], key_id: str, *, at: datetime) -> Step:
    """Erase a REVOKED key's material (refused in any other state)."""
    return _step(_get(ring, key_id), key_id, Destroy(at=at))


def apply_steps(ring: Mapping[str, KeyView], steps: list[Step]) -> dict[str, KeyView]:
    """The ring after ``steps`` (the same fold the projection runs)."""
    out = dict(ring)
    for step in steps:
        view = out.get(step.key_id)
        version = step.expected_version
        for event in step.events:
            version += 1
            view = evolve(view, event, version)
        if view is not None:
            out[step.key_id] = view
    return out
