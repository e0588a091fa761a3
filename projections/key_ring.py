"""The key ring as a pure fold of ``key-<keyId>`` streams: ``evolve(view, event) -> view``.

No I/O and no clock: the engine (``hookproof.engine.keys``) reads the ``key`` category of the
log, folds it here and decides on the result.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime

from hookproof.events import Event, RecordedEvent
from hookproof.events import key_events as ke
from hookproof.events.key_events import (
    PURPOSE_ENGINE,
    KeyState,
    RevokeReason,
    key_id_of,
    key_stream_id,
)

__all__ = ["KeyFoldError", "KeyView", "evolve", "fold", "scope_of"]


def scope_of(purpose: str, subscription_id: str | None) -> str:
    """The scope in which generations are monotonic and at most one key is ACTIVE."""
    return PURPOSE_ENGINE if purpose == PURPOSE_ENGINE else f"subscription:{subscription_id}"


@dataclass(frozen=True, slots=True)
class KeyView:
    """Everything known about one key, from its stream alone (never its material)."""

    key_id: str
    algorithm: str
    purpose: str
    subscription_id: str | None
    generation: int
    state: KeyState
    public_key: str | None
    max_message_lifetime_s: int
    created_at: datetime
    activated_at: datetime | None = None
    verify_only_at: datetime | None = None
    verify_only_until: datetime | None = None
    revoked_at: datetime | None = None
    revoke_reason: RevokeReason | None = None
    material_destroyed_at: datetime | None = None
    version: int = 1  # stream version of the last folded event

    @property
    def scope(self) -> str:
        return scope_of(self.purpose, self.subscription_id)

    @property
    def stream_id(self) -> str:
        return key_stream_id(self.key_id)

    @property
    def compromised(self) -> bool:
        return self.revoke_reason is RevokeReason.COMPROMISED


class KeyFoldError(ValueError):
    """The stream does not start with ``key.created`` (a corrupt or foreign stream)."""


def evolve(view: KeyView | None, event: Event, version: int | None = None) -> KeyView:
    """The key after ``event``. ``version`` is the stream version of the event when known."""
    if view is None:
        if not isinstance(event, ke.KeyCreated):
            raise KeyFoldError(f"key stream starts with {event.type}, not key.created")
        return KeyView(
            key_id=event.key_id,
            algorithm=event.algorithm,
            purpose=event.purpose,
            subscription_id=event.subscription_id,
            generation=event.generation,
            state=event.state,
            public_key=event.public_key,
            max_message_lifetime_s=event.max_message_lifetime_s,
            created_at=event.created_at,
            activated_at=event.activated_at,
            version=version or 1,
        )
    v = version if version is not None else view.version + 1
    if isinstance(event, ke.KeyActivated):
        return replace(view, state=KeyState.ACTIVE, activated_at=event.at, version=v)
    if isinstance(event, ke.KeySuperseded):
        return replace(
            view,
            state=KeyState.VERIFY_ONLY,
            verify_only_at=event.at,
            verify_only_until=event.verify_only_until,
            version=v,
        )
    if isinstance(event, ke.KeyRolledBack):
        return replace(
            view,
            state=KeyState.ACTIVE,
            activated_at=event.at,
            verify_only_at=None,
            verify_only_until=None,
            version=v,
        )
    if isinstance(event, ke.KeyRevoked):
        return replace(
            view,
            state=KeyState.REVOKED,
            revoked_at=event.at,
            revoke_reason=event.reason,
            version=v,
        )
    if isinstance(event, ke.KeyMaterialDestroyed):
        return replace(view, material_destroyed_at=event.at, version=v)
    return replace(view, version=v)


def fold(events: Iterable[RecordedEvent]) -> dict[str, KeyView]:
    """Every key of the ring from recorded ``key-*`` events (any order of streams)."""
    ring: dict[str, KeyView] = {}
    for rec in events:
        if rec.category != "key":
            continue
        kid = key_id_of(rec.stream_id)
        ring[kid] = evolve(ring.get(kid), rec.decode(), rec.stream_version)
    return ring
