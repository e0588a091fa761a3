"""``KeyRing``: the key ring service over the event store, the material table and a clock.

Every mutation runs in one transaction under an advisory lock (``events.command``): read the
``key`` category of the log, fold it (``projections.key_ring``), decide (``machine``), append
the events with expected versions and store any new material. Reads fold the same log, cached
until the log's key category changes (checked with one small query), so a key revoked by
another process is never used to sign again by this one.
"""

from __future__ import annotations

import base64
import getpass
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NamedTuple

import asyncpg
import structlog
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from hookproof.config import Settings
from hookproof.events import EventStore, Metadata, RecordedEvent, StreamAppend
from hookproof.events.command import Lock, execute_many
from hookproof.events.key_events import (
    ED25519,
    HMAC_SHA256,
    PURPOSE_ENGINE,
    PURPOSE_SUBSCRIPTION,
    KeyState,
    key_id_of,
    key_stream_id,
)
from hookproof.projections.key_ring import KeyView, fold, scope_of
from hookproof_subscriber import KeyState as WireKeyState
from hookproof_subscriber import SigningKey, VerificationKey
from hookproof_subscriber.keys import b64url_encode

from . import machine
from .errors import KeyMaterialUnavailable, KeyNotFound, KeyTransitionForbidden, NoActiveKey
from .material import MaterialBox, destroy_material, load_master_key, store_material
from .repository import KeyRepository

__all__ = [
    "CompromiseReport",
    "KeyRing",
    "NewSecret",
    "RingResolver",
    "default_actor",
    "new_key_id",
]

log = structlog.get_logger("hookproof.keys")

SECRET_BYTES = 32
#: the advisory lock every change of the ring holds: one change at a time, across engines
RING_LOCK = "hookproof.key_ring"


def _steps_of(recorded: list[RecordedEvent]) -> list[machine.Step]:
    """The steps a change appended (one per key stream, in order) from its recorded events."""
    steps: list[machine.Step] = []
    for r in recorded:
        if steps and key_stream_id(steps[-1].key_id) == r.stream_id:
            last = steps[-1]
            steps[-1] = machine.Step(last.key_id, last.expected_version, (*last.events, r.decode()))
        else:
            steps.append(
                machine.Step(key_id_of(r.stream_id), r.stream_version - 1, (r.decode(),))
            )
    return steps


def new_key_id() -> str:
    """A random, url-safe key id (``k_`` + 16 random bytes, base64url)."""
    return "k_" + secrets.token_urlsafe(16)


def default_actor() -> str:
    try:
        return f"cli:{getpass.getuser()}"
    except Exception:
        return "cli"


def _epoch(dt: datetime | None) -> int | None:
    return int(dt.timestamp()) if dt is not None else None


class NewSecret(NamedTuple):
    """A shared secret as shown once: key id and standard base64 of 32 random bytes."""

    key_id: str
    secret: str

    @classmethod
    def of(cls, view: KeyView, raw: bytes) -> NewSecret:
        return cls(view.key_id, base64.b64encode(raw).decode("ascii"))

    def __repr__(self) -> str:
        return f"NewSecret(key_id={self.key_id!r}, secret=<hidden>)"


@dataclass(frozen=True, slots=True)
class CompromiseReport:
    """What a compromise touched, for the caller to suspend what must be suspended.

    ``signing_paused``: the key was the ACTIVE one of its scope and no other key is ACTIVE;
    every subscription of the scope that has not proved one of ``newer_keys`` must be
    suspended (DESIGN.md section 6).
    """

    key_id: str
    purpose: str
    subscription_id: str | None
    generation: int
    previous_state: str
    revoked_at: datetime
    signing_paused: bool
    active_key_id: str | None
    newer_keys: tuple[str, ...]


class RingResolver:
    """A KeyResolver (helper ``verify_request``) over a snapshot of the ring."""

    def __init__(self, keys: Iterable[VerificationKey]) -> None:
        self._keys = {k.key_id: k for k in keys}

    def resolve(self, key_id: str) -> VerificationKey | None:
        return self._keys.get(key_id)

    def key_ids(self) -> list[str]:
        return sorted(self._keys)

    def __repr__(self) -> str:
        return f"RingResolver(key_ids={self.key_ids()!r})"


def verification_key_of(view: KeyView, *, secret: bytes | None = None) -> VerificationKey | None:
    """The verifier's view of a key: state, validity window, generation (public data only,
    plus the shared secret for hmac keys when given)."""
    valid_from = view.activated_at if view.state is not KeyState.NOT_BEFORE else None
    kwargs: dict[str, Any] = {
        "state": WireKeyState(str(view.state)),
        "not_before": _epoch(valid_from),
        "not_after": _epoch(view.verify_only_until) if view.state is KeyState.VERIFY_ONLY else None,
        "generation": view.generation,
    }
    if view.algorithm == ED25519:
        if view.public_key is None:
            return None
        raw = base64.urlsafe_b64decode(view.public_key + "=" * (-len(view.public_key) % 4))
        return VerificationKey.ed25519(view.key_id, raw, **kwargs)
    if secret is None:
        return None
    return VerificationKey.hmac(view.key_id, secret, **kwargs)


class KeyRing:
    """The key ring of one engine: engine ed25519 keys and per-subscription shared secrets."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        settings: Settings,
        *,
        store: EventStore | None = None,
        clock: Callable[[], datetime] | None = None,
        master_key: bytes | None = None,
    ) -> None:
        self.repository = KeyRepository(pool)
        self.settings = settings
        self.store = store if store is not None else EventStore(pool)
        self.clock = clock or (lambda: datetime.now(UTC))
        self.windows = machine.Windows.from_settings(settings)
        self._box = MaterialBox(master_key if master_key is not None else load_master_key(settings))
        self._ring: dict[str, KeyView] = {}
        #: per scope, its ACTIVE key of the newest generation (``machine.active_in`` of the ring,
        #: made once per fold: a claim asks per scope, and the ring holds a secret per
        #: subscription, so scanning it per question cost in proportion to the subscriptions)
        self._active: dict[str, KeyView] = {}
        self._head: tuple[int, int] | None = None
        self._signers: dict[str, SigningKey] = {}

    def __repr__(self) -> str:
        return f"KeyRing(keys={len(self._ring)})"

    def now(self) -> datetime:
        now = self.clock()
        return now if now.tzinfo is not None else now.replace(tzinfo=UTC)

    @property
    def lifetime_s(self) -> int:
        return max(1, int(self.settings.signature_lifetime_s))

    # -- reading -------------------------------------------------------------------------

    async def _read_key_log(self, conn: asyncpg.Connection | None = None) -> list[RecordedEvent]:
        """Every event of the ``key`` category, in log order."""
        return [RecordedEvent.from_record(r) for r in await self.repository.events(conn)]

    async def _read_ring(self, conn: asyncpg.Connection | None = None) -> dict[str, KeyView]:
        ring: dict[str, KeyView] = fold(await self._read_key_log(conn))
        return ring

    async def refresh(self) -> dict[str, KeyView]:
        """The ring as of now (folded again only when the key category of the log moved)."""
        head = await self.repository.head()
        if head != self._head:
            ring = await self._read_ring()
            self._set(ring, head)
        return self._ring

    def _set(self, ring: dict[str, KeyView], head: tuple[int, int] | None) -> None:
        self._ring = ring
        self._head = head
        self._active = machine.active_by_scope(ring)
        for kid in list(self._signers):
            view = ring.get(kid)
            if view is None or view.state is not KeyState.ACTIVE:
                self._signers.pop(kid, None)  # invalidated: only ACTIVE keys may sign

    async def keys(
        self, *, purpose: str | None = None, subscription_id: str | None = None
    ) -> list[KeyView]:
        ring = await self.refresh()
        out = [
            v
            for v in ring.values()
            if (purpose is None or v.purpose == purpose)
            and (subscription_id is None or v.subscription_id == subscription_id)
        ]
        return sorted(out, key=lambda v: (v.scope, v.generation))

    async def get(self, key_id: str) -> KeyView:
        view = (await self.refresh()).get(key_id)
        if view is None:
            raise KeyNotFound(f"key {key_id} not found", key_id=key_id)
        return view

    async def active(self, scope: str = PURPOSE_ENGINE) -> KeyView | None:
        await self.refresh()
        return self._active.get(scope)

    # -- writing -------------------------------------------------------------------------

    async def _mutate(
        self,
        plan: Callable[[dict[str, KeyView], datetime], list[machine.Step]],
        actor: str,
        *,
        material: Callable[[dict[str, KeyView]], list[tuple[str, str, bytes]]] | None = None,
        destroy: str | None = None,
    ) -> tuple[dict[str, KeyView], list[machine.Step]]:
        at = self.now()

        def decide(ring: dict[str, KeyView], at: datetime) -> list[StreamAppend]:
            return [
                StreamAppend(
                    key_stream_id(s.key_id),
                    list(s.events),
                    expected=s.expected_version if s.expected_version else "no_stream",
                    metadata=Metadata(actor=actor),
                )
                for s in plan(ring, at)
            ]

        async def effects(
            conn: asyncpg.Connection, ring: dict[str, KeyView], _: list[RecordedEvent]
        ) -> None:
            for key_id, algorithm, plaintext in material(ring) if material else []:
                await store_material(conn, self._box, key_id, algorithm, plaintext, at)
            if destroy is not None:
                await destroy_material(conn, destroy, at)

        done = await execute_many(
            self.store,
            self._read_key_log,
            fold,
            decide,
            at,
            strategy=Lock(RING_LOCK),
            effects=effects,
        )
        ring, steps = done.state, _steps_of(done.recorded)
        after = machine.apply_steps(ring, steps)
        self._set(after, None)  # the next read re-checks the head
        for s in steps:
            for e in s.events:
                log.info("key_transition", key_id=s.key_id, transition=e.type, actor=actor)
        return after, steps

    async def _create(
        self,
        subscription_id: str | None,
        *,
        active: bool,
        actor: str,
        imported: bytes | None = None,
    ) -> tuple[KeyView, bytes]:
        """A new key of one scope: an ed25519 engine key (``subscription_id`` None) or the
        hmac-sha256 shared secret of a subscription. Returns its view and its material."""
        if subscription_id is None:
            algorithm, purpose = ED25519, PURPOSE_ENGINE
        else:
            algorithm, purpose = HMAC_SHA256, PURPOSE_SUBSCRIPTION
        key_id = new_key_id()
        public: str | None
        if imported is not None:
            if algorithm != HMAC_SHA256:
                raise ValueError("only shared secrets are imported")
            plaintext = imported
            public = None
        elif algorithm == ED25519:
            private = Ed25519PrivateKey.generate()
            plaintext = private.private_bytes(
                serialization.Encoding.Raw,
                serialization.PrivateFormat.Raw,
                serialization.NoEncryption(),
            )
            public = b64url_encode(
                private.public_key().public_bytes(
                    serialization.Encoding.Raw, serialization.PublicFormat.Raw
                )
            )
        else:
            plaintext = secrets.token_bytes(SECRET_BYTES)
            public = None

        def plan(ring: dict[str, KeyView], at: datetime) -> list[machine.Step]:
            return [
                machine.plan_create(
                    ring,
                    key_id=key_id,
                    algorithm=algorithm,
                    purpose=purpose,
                    subscription_id=subscription_id,
                    public_key=public,
                    max_message_lifetime_s=self.lifetime_s,
                    at=at,
                    active=active,
                )
            ]

        after, _ = await self._mutate(
            plan, actor, material=lambda _ring: [(key_id, algorithm, plaintext)]
        )
        return after[key_id], plaintext

    async def ensure_active_engine_key(self, *, actor: str = "system") -> KeyView | None:
        """The ACTIVE engine key; creates the first one when the ring has no engine key at all.

        Returns None when engine keys exist but none is ACTIVE (after a compromise signing
        stays paused until an operator promotes a new key: never re-created silently).
        """
        ring = await self.refresh()
        current = machine.active_in(ring, PURPOSE_ENGINE)
        if current is not None:
            return current
        if any(v.purpose == PURPOSE_ENGINE for v in ring.values()):
            log.warning("no_active_engine_key")
            return None
        try:
            view, _ = await self._create(None, active=True, actor=actor)
        except KeyTransitionForbidden as exc:  # another process created it first
            if exc.code != "active_key_exists":
                raise
            return await self.active(PURPOSE_ENGINE)
        return view

    async def rotate(self, *, actor: str = "system") -> KeyView:
        """Publish the next engine key as NOT_BEFORE (in the JWKS, not signing yet)."""
        view, _ = await self._create(None, active=False, actor=actor)
        return view

    async def promote(self, key_id: str, *, actor: str = "system") -> KeyView:
        """NOT_BEFORE ``key_id`` -> ACTIVE; the previous ACTIVE key -> VERIFY_ONLY until
        now + max queue delay + max retry window + clock skew. Returns the new ACTIVE key."""
        after, _ = await self._mutate(
            lambda ring, at: machine.plan_promote(ring, key_id, at=at, windows=self.windows),
            actor,
        )
        return after[key_id]

    async def rollback(self, key_id: str, *, actor: str = "system") -> KeyView:
        """Back to a VERIFY_ONLY key (never revoked, before its deadline); else refused."""
        after, _ = await self._mutate(
            lambda ring, at: machine.plan_rollback(ring, key_id, at=at, windows=self.windows),
            actor,
        )
        return after[key_id]

    async def retire_expired(
        self, now: datetime | None = None, *, actor: str = "system"
    ) -> list[KeyView]:
        """VERIFY_ONLY keys past their deadline -> REVOKED (reason ``retired``)."""
        at = now or self.now()
        after, steps = await self._mutate(
            lambda ring, _at: machine.plan_retire(ring, at=at),
            actor,
        )
        return [after[s.key_id] for s in steps]

    async def compromise(self, key_id: str, *, actor: str = "system") -> CompromiseReport:
        """Revoke at once (reason ``compromised``). Never signs or verifies again."""
        before = await self.get(key_id)
        after, _ = await self._mutate(
            lambda ring, at: [machine.plan_compromise(ring, key_id, at=at)], actor
        )
        view = after[key_id]
        active = machine.active_in(after, view.scope)
        newer = tuple(
            v.key_id
            for v in sorted(after.values(), key=lambda v: v.generation)
            if v.scope == view.scope
            and v.generation > view.generation
            and v.state is not KeyState.REVOKED
        )
        log.warning("key_compromised", key_id=key_id, actor=actor)
        return CompromiseReport(
            key_id=key_id,
            purpose=view.purpose,
            subscription_id=view.subscription_id,
            generation=view.generation,
            previous_state=str(before.state),
            revoked_at=view.revoked_at or self.now(),
            signing_paused=active is None,
            active_key_id=active.key_id if active else None,
            newer_keys=newer,
        )

    async def abandon(self, key_id: str, *, actor: str = "system") -> KeyView:
        """Withdraw a NOT_BEFORE key that will not be promoted (REVOKED, ``abandoned``)."""
        after, _ = await self._mutate(
            lambda ring, at: [machine.plan_abandon(ring, key_id, at=at)], actor
        )
        return after[key_id]

    async def destroy(self, key_id: str, *, actor: str = "system") -> KeyView:
        """Crypto-shred a REVOKED key's material. The log (and its chains) stay intact."""
        ring = await self.refresh()
        machine.plan_destroy(ring, key_id, at=self.now())  # refuses early, before locking
        after, _ = await self._mutate(
            lambda r, at: [machine.plan_destroy(r, key_id, at=at)], actor, destroy=key_id
        )
        return after[key_id]

    # -- signing and verifying -------------------------------------------------------------

    async def _signing_key_of(self, view: KeyView) -> SigningKey:
        if view.state is not KeyState.ACTIVE:
            raise NoActiveKey(f"key {view.key_id} is {view.state}, not ACTIVE", key_id=view.key_id)
        cached = self._signers.get(view.key_id)
        if cached is not None:
            return cached
        key = self._signers[view.key_id] = await self._signing_key_from_material(view)
        return key

    async def challenge_key(self, key_id: str) -> SigningKey:
        """A NOT_BEFORE (or ACTIVE) key to sign a rotation challenge: the subscriber proves it
        verifies the next generation before any delivery is signed with it."""
        view = await self.get(key_id)
        if view.state not in (KeyState.NOT_BEFORE, KeyState.ACTIVE):
            raise NoActiveKey(
                f"key {key_id} is {view.state}: it cannot sign a challenge", key_id=key_id
            )
        return await self._signing_key_from_material(view)

    async def _signing_key_from_material(self, view: KeyView) -> SigningKey:
        raw = await self.repository.material(self._box, view.key_id)
        if view.algorithm == ED25519:
            return SigningKey.ed25519(view.key_id, Ed25519PrivateKey.from_private_bytes(raw))
        return SigningKey.hmac(view.key_id, raw)

    async def signing_key(self) -> SigningKey:
        """The ACTIVE engine key (ed25519). Never a REVOKED, VERIFY_ONLY or NOT_BEFORE one."""
        view = await self.active(PURPOSE_ENGINE)
        if view is None:
            raise NoActiveKey("no ACTIVE engine key: signing is paused")
        return await self._signing_key_of(view)

    async def signing_key_for_subscription(self, subscription_id: str) -> SigningKey:
        """The ACTIVE shared secret of a subscription as an hmac-sha256 SigningKey."""
        view = await self.active(scope_of(PURPOSE_SUBSCRIPTION, subscription_id))
        if view is None:
            raise NoActiveKey(
                f"subscription {subscription_id}: no ACTIVE shared secret",
                subscription_id=subscription_id,
            )
        return await self._signing_key_of(view)

    async def resolver(self, *, include_secrets: bool = False) -> RingResolver:
        """A snapshot KeyResolver: every engine key with state, nbf/exp and generation
        (REVOKED ones included so the verifier answers ``revoked_key``); with
        ``include_secrets``, hmac-sha256 subscription secrets too."""
        ring = await self.refresh()
        keys: list[VerificationKey] = []
        for view in ring.values():
            secret: bytes | None = None
            if view.algorithm == HMAC_SHA256:
                if not include_secrets:
                    continue
                if view.state is KeyState.REVOKED:
                    secret = secrets.token_bytes(SECRET_BYTES)  # never matches; state decides
                else:
                    secret = await self.repository.material(self._box, view.key_id)
            vk = verification_key_of(view, secret=secret)
            if vk is not None:
                keys.append(vk)
        return RingResolver(keys)

    # -- shared secrets --------------------------------------------------------------------

    async def create_subscription_secret(
        self, subscription_id: str, *, actor: str = "system"
    ) -> NewSecret:
        """The first shared secret of a subscription, ACTIVE; shown once (standard base64)."""
        return NewSecret.of(*await self._create(subscription_id, active=True, actor=actor))

    async def import_subscription_secret(
        self, subscription_id: str, secret: bytes, *, actor: str = "system"
    ) -> str:
        """An existing shared secret (e.g. a ``whsec_`` from another platform) as the first
        ACTIVE secret of a subscription. Returns its key id; the secret is never echoed."""
        view, _ = await self._create(subscription_id, active=True, actor=actor, imported=secret)
        return view.key_id

    async def rotate_subscription_secret(
        self, subscription_id: str, *, actor: str = "system"
    ) -> NewSecret:
        """The next shared secret as NOT_BEFORE (shown once); ``promote`` it once proved."""
        return NewSecret.of(*await self._create(subscription_id, active=False, actor=actor))

    async def secret_for(self, key_id: str) -> bytes:
        """The raw bytes of a shared secret that is not REVOKED (for HMAC signing/proofs)."""
        view = await self.get(key_id)
        if view.algorithm != HMAC_SHA256:
            raise KeyTransitionForbidden(
                f"key {key_id} is not a shared secret", code="wrong_key_scope", key_id=key_id
            )
        if view.state is KeyState.REVOKED:
            raise KeyMaterialUnavailable(
                f"key {key_id} is revoked", code="key_revoked", key_id=key_id
            )
        return await self.repository.material(self._box, key_id)

    # -- publishing ------------------------------------------------------------------------

    async def jwks(self) -> dict[str, object]:
        from .jwks import build_jwks

        return build_jwks((await self.refresh()).values())
