"""Pure decisions for subscriptions: ``decide(state, command, now) -> events`` or a rejection.

No I/O here: the service folds the stream, calls ``decide`` and appends the result with the
stream's version as the expected version.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import msgspec

from hookproof.errors import ConflictError, HookproofError, PreconditionFailed
from hookproof.events import Event
from hookproof.events.subscription_events import (
    SubscriptionAuthChanged,
    SubscriptionConfig,
    SubscriptionRegistered,
    SubscriptionStateChanged,
    SubscriptionUpdated,
)
from hookproof.projections.subscriptions import SubscriptionState

from .machine import TERMINAL, next_state

__all__ = [
    "GENERATION_FIELDS",
    "PROOF_FIELDS",
    "Register",
    "Transition",
    "Update",
    "decide",
]

#: Changing any of these creates a new generation and requires a new challenge.
GENERATION_FIELDS = frozenset(
    {
        "endpoint",
        "endpoint_digest",
        "topics",
        "filter",
        "filters",
        "transformation",
        "event_versions",
        "owner",
        "destination",
        "format",
    }
)
#: Changing any of these changes what the challenge proves (the proof is signed under the
#: receipt key): the endpoint is challenged again, in the same generation.
PROOF_FIELDS = frozenset({"receipt_key"})
#: Fields a PATCH may change.
MUTABLE_FIELDS = GENERATION_FIELDS | {
    "retry_policy",
    "expires_at",
    "receipt_key",
    "old_generation_policy",
    "region",
    "ordering",
    "ordering_gap_timeout_s",
    "rate_limit",
}
#: Changed by a PATCH as an event of its own (``subscription.auth_changed``), never a new
#: generation: the endpoint's authentication is not part of what a challenge binds.
AUTH_FIELD = "auth"
#: Changed only by the engine itself: a completed (or rolled back) rollout of a signing change.
ROLLOUT_FIELDS = frozenset({"signature_profile"})


class TransitionForbidden(HookproofError):
    code = "transition_forbidden"
    status = 409
    title = "Transition not allowed in this state"


@dataclass(frozen=True)
class Register:
    subscription_id: str
    tenant_id: str
    config: SubscriptionConfig


@dataclass(frozen=True)
class Update:
    expected_generation: int
    changes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Transition:
    command: str  # activate | start_rotation | suspend | resume | challenge | revoke | expire
    expected_generation: int | None = None
    reason: str | None = None


Command = Register | Update | Transition


def _check_generation(state: SubscriptionState, expected: int | None) -> None:
    if expected is not None and expected != state.generation:
        raise PreconditionFailed(
            f"expected generation {expected}, current is {state.generation}",
            code="generation_mismatch",
            currentGeneration=state.generation,
            etag=f'"{state.generation}"',
        )


def decide(state: SubscriptionState | None, command: Command, now: datetime) -> list[Event]:
    at = now.isoformat()
    if isinstance(command, Register):
        if state is not None:
            raise ConflictError("subscription already exists", code="subscription_exists")
        return [
            SubscriptionRegistered(
                subscription_id=command.subscription_id,
                tenant_id=command.tenant_id,
                generation=1,
                config=command.config,
                at=at,
            )
        ]
    if state is None:
        raise ConflictError("no such subscription", code="subscription_not_found")
    if state.state in TERMINAL:
        raise TransitionForbidden(
            f"subscription is {state.state}", code="subscription_closed", state=state.state
        )

    if isinstance(command, Update):
        _check_generation(state, command.expected_generation)
        unknown = set(command.changes) - MUTABLE_FIELDS - ROLLOUT_FIELDS - {AUTH_FIELD}
        if unknown:
            raise TransitionForbidden(f"fields not changeable: {sorted(unknown)}")
        current = msgspec.structs.asdict(state.config)
        changed = sorted(
            k for k, v in command.changes.items() if k != AUTH_FIELD and current.get(k) != v
        )
        auth_events: list[Event] = []
        if AUTH_FIELD in command.changes and command.changes[AUTH_FIELD] != state.config.auth:
            auth_events.append(
                SubscriptionAuthChanged(
                    subscription_id=state.subscription_id,
                    generation=state.generation,
                    auth=command.changes[AUTH_FIELD],
                    at=at,
                )
            )
        if not changed:
            if auth_events and next_state(state.state, "update") is None:
                raise TransitionForbidden(f"update not allowed in {state.state}")
            return auth_events
        config = msgspec.structs.replace(state.config, **{k: command.changes[k] for k in changed})
        regenerate = bool(GENERATION_FIELDS & set(changed))
        cmd = "regenerate" if regenerate else "update"
        target = next_state(state.state, cmd)
        if target is None:
            raise TransitionForbidden(f"{cmd} not allowed in {state.state}")
        return [
            SubscriptionUpdated(
                subscription_id=state.subscription_id,
                generation=state.generation + 1 if regenerate else state.generation,
                previous_generation=state.generation,
                changed=changed,
                config=config,
                at=at,
            ),
            *auth_events,
        ]

    _check_generation(state, command.expected_generation)
    if command.command == "expire":
        expires = state.config.expires_at
        if expires is None or datetime.fromisoformat(expires) > now:
            raise TransitionForbidden("subscription has not reached its expiry", code="not_expired")
    target = next_state(state.state, command.command)
    if target is None:
        raise TransitionForbidden(
            f"{command.command} is not allowed in state {state.state}",
            state=state.state,
            command=command.command,
        )
    generation = state.generation + 1 if command.command == "revoke" else state.generation
    return [
        SubscriptionStateChanged(
            subscription_id=state.subscription_id,
            command=command.command,
            from_state=state.state,
            to_state=target,
            generation=generation,
            reason=command.reason,
            at=at,
        )
    ]
