"""Rollouts: fold the ``rollout-<id>`` stream, decide, append, keep the ``rollouts`` row.

Each command runs in one transaction: an advisory lock per rollout, read and fold the stream,
``decide``, append with the stream version as expected, and upsert the ``rollouts`` row the
dispatcher reads FOR SHARE while admitting. Figures come from the log (the admissions record
the rollout, its stage and the signing mode; the outcomes follow in the same streams).
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import msgspec
import structlog

from hookproof.config import Settings
from hookproof.errors import ConflictError, NotFound, ValidationError
from hookproof.events import EventStore, Metadata, RecordedEvent
from hookproof.events.command import Lock, execute
from hookproof.events.rollout_events import RolloutRollbackRefused, rollout_stream_id

from . import machine
from .machine import RolloutView
from .repository import RolloutRepository

__all__ = [
    "AUTO_PAUSE_MIN_ATTEMPTS",
    "AUTO_PAUSE_RATIO",
    "ROLLOUT_ID",
    "RolloutService",
    "since_of",
    "stream_of",
]

log = structlog.get_logger("hookproof.rollouts")
#: the format of every id ``create`` makes
ROLLOUT_ID = re.compile(r"^ro_[0-9a-f]{20}$")
AUTO_PAUSE_RATIO = 0.9995  # switched acceptance below 99.95% of the unswitched baseline
AUTO_PAUSE_MIN_ATTEMPTS = 200  # decided attempts on switched subscriptions before judging


def since_of(view: RolloutView) -> datetime:
    """Admissions under a rollout are recorded after it was created (less a clock margin)."""
    return datetime.fromisoformat(view.created_at) - timedelta(minutes=10)


def stream_of(rollout_id: str) -> str:
    return rollout_stream_id(rollout_id)


def fold_view(recorded: list[RecordedEvent], view: RolloutView | None = None) -> RolloutView | None:
    """The rollout after ``recorded`` (events of its stream, in order), from ``view``."""
    for r in recorded:
        view = machine.evolve(view, r.decode(), version=r.stream_version)
    return view


def _decide(view: RolloutView | None, command: machine.Command) -> list[Any]:
    """``machine.decide``; no rollout is ``rollout_not_found`` for anything but a create."""
    if view is None and not isinstance(command, machine.Create):
        raise NotFound("no such rollout", code="rollout_not_found")
    return machine.decide(view, command)


def view_to_json(view: RolloutView) -> str:
    doc = asdict(view)
    doc["internal"] = sorted(view.internal)
    return msgspec.json.encode(doc).decode()


def view_from_json(text: str | bytes) -> RolloutView:
    return msgspec.json.decode(text, type=RolloutView)


class RolloutService:
    def __init__(
        self,
        store: EventStore,
        settings: Settings,
        *,
        ring: Any,
        subscriptions: Any = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        repository: RolloutRepository | None = None,
    ) -> None:
        self.store = store
        self.subscriptions = subscriptions  # SubscriptionService: profile write-back
        self.repository = repository or RolloutRepository.of(store)
        self.settings = settings
        self.ring = ring
        self.clock = clock
        self.min_attempts = AUTO_PAUSE_MIN_ATTEMPTS

    # -- reads --------------------------------------------------------------------------

    async def load(self, rollout_id: str, conn: Any = None) -> RolloutView | None:
        return fold_view(await self.store.read_stream(stream_of(rollout_id), conn=conn))

    async def get(self, rollout_id: str) -> RolloutView:
        view = await self.load(rollout_id)
        if view is None:
            raise NotFound("no such rollout", code="rollout_not_found")
        return view

    async def all(self) -> list[RolloutView]:
        rows = await self.repository.all()
        return [view_from_json(r["view"]) for r in rows]

    async def page(
        self, after: tuple[datetime, str] | None, limit: int
    ) -> tuple[list[RolloutView], tuple[datetime, str] | None]:
        """One page of rollouts, oldest first, and the key the next page starts after."""
        rows = await self.repository.page(after, limit + 1)
        more = len(rows) > limit
        rows = rows[:limit]
        nxt = (rows[-1]["created_at"], rows[-1]["rollout_id"]) if more else None
        return [view_from_json(r["view"]) for r in rows], nxt

    async def live(self, conn: Any) -> list[RolloutView]:
        """Rollouts that decide signing, locked FOR SHARE in *conn*'s transaction."""
        rows = await self.repository.live(conn)
        return [view_from_json(r["view"]) for r in rows]

    # -- writes -------------------------------------------------------------------------

    async def execute(
        self, rollout_id: str, command: machine.Command, *, actor: str
    ) -> tuple[RolloutView, list[Any]]:
        """One command under the rollout's lock: fold, decide, append and upsert the
        ``rollouts`` row in one transaction."""
        done = await execute(
            self.store,
            stream_of(rollout_id),
            fold_view,
            _decide,
            command,
            strategy=Lock(),  # the lock of the stream ``rollout-<id>``
            metadata=Metadata(actor=actor),
            effects=self._save,
        )
        view = fold_view(done.recorded, done.state)
        if view is None:  # decided nothing on no rollout
            raise NotFound("no such rollout", code="rollout_not_found")
        events = [r.decode() for r in done.recorded]
        for e in events:
            log.info("rollout_transition", rollout_id=rollout_id, transition=e.type, actor=actor)
        return view, events

    async def _save(
        self, conn: asyncpg.Connection, before: RolloutView | None, recorded: list[RecordedEvent]
    ) -> None:
        view = fold_view(recorded, before)
        assert view is not None
        await self.repository.save(conn, view, view_to_json(view))

    async def create(
        self,
        *,
        target_kind: str,
        target: str,
        subscriptions: list[str] | None,
        internal: list[str],
        dual_window_s: float | None,
        actor: str,
    ) -> RolloutView:
        wanted = sorted(set(subscriptions or []) | set(internal))
        if wanted:
            missing = sorted(set(wanted) - await self.repository.existing_subscriptions(wanted))
            if missing:
                raise ValidationError(
                    f"unknown subscriptions: {', '.join(missing[:10])}",
                    field="subscriptions",
                    code="subscription_not_found",
                )
        if subscriptions is not None and not set(internal) <= set(subscriptions):
            raise ValidationError("internal must be among subscriptions", field="internal")
        active = await self.ring.active("engine")
        if target_kind == machine.KEY_TARGET:
            try:
                key = await self.ring.get(target)
            except Exception:
                raise ValidationError(
                    "no such signing key", field="target.signingKey", code="key_not_found"
                ) from None
            if key.purpose != "engine" or str(key.state) not in ("NOT_BEFORE", "ACTIVE"):
                raise ConflictError(
                    "the target key must be an engine key in state NOT_BEFORE or ACTIVE",
                    code="rollout_target_key_unusable",
                )
            if active is not None and active.key_id == target:
                raise ConflictError("the target key signs already", code="rollout_no_change")
        window = self.settings.verify_only_window_s if dual_window_s is None else dual_window_s
        if not 0 <= window <= 30 * 86400:
            raise ValidationError("dualWindowS must be 0..2592000", field="dualWindowS")
        rollout_id = "ro_" + secrets.token_hex(10)
        view, _ = await self.execute(
            rollout_id,
            machine.Create(
                rollout_id=rollout_id,
                target_kind=target_kind,
                target=target,
                source_key_id=active.key_id if active is not None else None,
                subscriptions=subscriptions,
                internal=internal,
                dual_window_s=window,
                at=self.clock(),
            ),
            actor=actor,
        )
        return view

    async def advance(
        self, rollout_id: str, stage: str, percent: int | None, *, actor: str
    ) -> RolloutView:
        covered = None
        if stage == "COMPLETE":  # an "all" rollout stops covering subscriptions made later
            covered = [sid for sid, _ in await self._covered(await self.get(rollout_id))]
        view, events = await self.execute(
            rollout_id,
            machine.Advance(stage=stage, percent=percent, at=self.clock(), covered=covered),
            actor=actor,
        )
        if stage == "COMPLETE" and events and view.target_kind == machine.KEY_TARGET:
            key = await self.ring.get(view.target)
            if str(key.state) == "NOT_BEFORE":  # signing switches to it for everyone
                await self.ring.promote(view.target, actor=actor)
        if stage == "COMPLETE" and events and view.target_kind == machine.PROFILE_TARGET:
            await self._write_back(view, view.target, actor)
        return view

    async def _write_back(self, view: RolloutView, profile: str, actor: str) -> None:
        """Each covered subscription's ``signatureProfile`` becomes *profile* (same
        generation: a ``subscription.updated`` event); the rollout keeps deciding the dual
        window of the ones it switched last."""
        if self.subscriptions is None or view.subscriptions is None:
            return
        from ..subscriptions.decide import Update

        for sid in view.subscriptions:
            try:
                await self.subscriptions.execute(
                    sid,
                    Update(None, {"signature_profile": profile}),  # type: ignore[arg-type]
                    actor=actor,
                )
            except Exception as exc:  # revoked or expired meanwhile: nothing to write
                log.info(
                    "rollout_write_back_skipped", subscription_id=sid, error=type(exc).__name__
                )

    async def pause(self, rollout_id: str, *, actor: str, reason: str = "operator") -> RolloutView:
        view, _ = await self.execute(
            rollout_id, machine.Pause(reason=reason, at=self.clock()), actor=actor
        )
        return view

    async def resume(self, rollout_id: str, *, actor: str) -> RolloutView:
        view, _ = await self.execute(rollout_id, machine.Resume(at=self.clock()), actor=actor)
        return view

    async def rollback(self, rollout_id: str, *, actor: str) -> RolloutView:
        """Back to the previous profile/key while its key is ACTIVE or VERIFY_ONLY; else the
        refusal is recorded, the rollout is PAUSED and ``rollback_refused`` raised."""
        current = await self.get(rollout_id)
        state: str | None = None
        if current.source_key_id is not None:
            try:
                state = str((await self.ring.get(current.source_key_id)).state)
            except Exception:
                state = "REVOKED"  # gone from the ring: nothing to return to
        view, events = await self.execute(
            rollout_id, machine.Rollback(source_key_state=state, at=self.clock()), actor=actor
        )
        if (
            events
            and view.state == "ROLLED_BACK"
            and view.target_kind == machine.KEY_TARGET
            and state == "VERIFY_ONLY"
            and current.source_key_id is not None
        ):  # a completed key rollout promoted the target: the previous key signs again
            await self.ring.rollback(current.source_key_id, actor=actor)
        if (
            events
            and view.state == "ROLLED_BACK"
            and view.target_kind == machine.PROFILE_TARGET
            and current.stage == "COMPLETE"
            and view.source_profile is not None
        ):  # the completed rollout wrote the target profile back: undo it
            await self._write_back(view, view.source_profile, actor)
        if any(isinstance(e, RolloutRollbackRefused) for e in events):
            raise ConflictError(
                f"the previous key {current.source_key_id} is {state}: rollback refused",
                code="rollback_refused",
                rolloutId=rollout_id,
                keyId=current.source_key_id,
                keyState=state,
            )
        return view

    async def signing_targets(self) -> set[str]:
        """Engine keys that sign for some subscriptions through a rollout (past SHADOW, not
        rolled back) while the ring still holds them NOT_BEFORE."""
        return {
            v.target
            for v in await self.all()
            if v.target_kind == machine.KEY_TARGET
            and v.state != "ROLLED_BACK"
            and v.stage != "SHADOW"
        }

    async def jwks(self) -> dict[str, object]:
        """The ring's JWKS, a rollout's target key published as ``ACTIVE``: it signs now
        (for the rollout's internal and switched subscriptions), so verifiers must accept it."""
        doc: dict[str, object] = await self.ring.jwks()
        live = await self.signing_targets()
        keys = doc.get("keys")
        if live and isinstance(keys, list):
            for jwk in keys:
                if (
                    isinstance(jwk, dict)
                    and jwk.get("kid") in live
                    and jwk.get("state") == "NOT_BEFORE"
                ):
                    jwk["state"] = "ACTIVE"
                    jwk.pop("nbf", None)
        return doc

    async def record_shadow(
        self, rollout_id: str, checked: int, mismatches: int, reasons: dict[str, int]
    ) -> None:
        try:
            await self.execute(
                rollout_id,
                machine.ShadowCheck(
                    checked=checked, mismatches=mismatches, reasons=reasons, at=self.clock()
                ),
                actor="system:dispatcher",
            )
        except ConflictError as exc:  # rolled back or complete meanwhile: counts dropped
            log.info("rollout_shadow_dropped", rollout_id=rollout_id, code=exc.code)

    async def on_key_compromised(self, key_id: str, *, actor: str) -> list[str]:
        """A key compromise during a rollout pauses it (its source or target key)."""
        paused = []
        for view in await self.all():
            if view.state != "RUNNING":
                continue
            if key_id in (view.source_key_id, view.target):
                await self.execute(
                    view.rollout_id,
                    machine.Pause(reason="key_compromised", key_id=key_id, at=self.clock()),
                    actor=actor,
                )
                paused.append(view.rollout_id)
        return paused

    # -- figures and the automatic pause -------------------------------------------------

    async def figures(self, rollout_id: str) -> dict[str, Any]:
        view = await self.get(rollout_id)
        rows = await self.repository.figures(rollout_id, since_of(view))
        covered = await self._covered(view)
        switched = sum(1 for sid, _ in covered if view.switched_at(sid) is not None)
        return figures_of(view, [dict(r) for r in rows], switched, len(covered))

    async def _covered(self, view: RolloutView) -> list[tuple[str, str]]:
        """(subscription id, profile) of the live subscriptions the rollout covers now."""
        subs = await self.repository.candidates(view.subscriptions)
        return [
            (r["subscription_id"], r["profile"])
            for r in subs
            if view.covers(r["subscription_id"], r["profile"], r["algorithm"])
        ]

    async def check(self, rollout_id: str) -> RolloutView:
        """Pause a RUNNING cutover whose switched acceptance fell below 99.95% of the
        unswitched baseline (over at least ``min_attempts`` decided switched attempts)."""
        view = await self.get(rollout_id)
        if view.state != "RUNNING" or view.stage not in ("CUTOVER", "COMPLETE"):
            return view
        figs = await self.figures(rollout_id)
        cut = figs["cutover"]
        n = cut["decidedAttempts"]
        if n < self.min_attempts or cut["acceptance"] is None:
            return view
        baseline = cut["baselineAcceptance"]
        if baseline is None:
            baseline = 1.0
        if cut["acceptance"] >= AUTO_PAUSE_RATIO * baseline:
            return view
        view, _ = await self.execute(
            rollout_id,
            machine.Pause(
                reason="acceptance_below_baseline",
                acceptance=cut["acceptance"],
                baseline_acceptance=baseline,
                attempts=n,
                at=self.clock(),
            ),
            actor="system:rollout-guard",
        )
        log.warning(
            "rollout_auto_paused",
            rollout_id=rollout_id,
            acceptance=cut["acceptance"],
            baseline=baseline,
            attempts=n,
        )
        return view

    async def check_all(self) -> list[str]:
        paused = []
        for view in await self.all():
            if view.state == "RUNNING" and view.stage in ("CUTOVER", "COMPLETE"):
                after = await self.check(view.rollout_id)
                if after.state == "PAUSED":
                    paused.append(view.rollout_id)
        return paused


def _rate(accepted: int, decided: int) -> float | None:
    return round(accepted / decided, 6) if decided else None


def figures_of(
    view: RolloutView, rows: list[dict[str, Any]], switched: int, covered: int
) -> dict[str, Any]:
    """The per-stage figures of ``GET /v1/rollouts/{id}`` (pure). *rows*: admissions under
    the rollout grouped by stage and signing mode (``rollout_figures.sql``)."""
    switched_rows = [
        r for r in rows if r["mode"] in ("dual", "target") and r["stage"] in ("CUTOVER", "COMPLETE")
    ]
    base_rows = [r for r in rows if r["mode"] in ("baseline", "shadow")]
    sw_dec = sum(r["decided"] for r in switched_rows)
    sw_acc = sum(r["accepted"] for r in switched_rows)
    b_dec = sum(r["decided"] for r in base_rows)
    b_acc = sum(r["accepted"] for r in base_rows)
    return {
        "shadow": {"checked": view.shadow_checked, "mismatches": view.shadow_mismatches},
        "internal": {
            "dualSigned": sum(
                r["attempts"] for r in rows if r["stage"] == "INTERNAL" and r["mode"] == "dual"
            )
        },
        "cutover": {
            "switched": switched,
            "covered": covered,
            "attempts": sum(r["attempts"] for r in switched_rows),
            "decidedAttempts": sw_dec,
            "acceptance": _rate(sw_acc, sw_dec),
            "baselineAttempts": b_dec,
            "baselineAcceptance": _rate(b_acc, b_dec),
            "dualSigned": sum(r["attempts"] for r in switched_rows if r["mode"] == "dual"),
        },
    }
