"""Events of a rollout of a signing change (``rollout-<id>``).

A rollout moves subscriptions from what they are signed with today to a target: another
signature profile (``standard-webhooks.v1`` -> ``hookproof.sig.v1``) or another engine signing
key. Its whole life is in its stream: creation (target, the key the old signatures use, which
subscriptions, which are internal), every stage advance with its time (the switch time of each
bucket), pauses with their reason and the figures that caused them, resumes, rollbacks and
refused rollbacks, and the shadow checks counted beside the live path.
"""

from __future__ import annotations

from .catalogue import Event

__all__ = [
    "ROLLOUT_EVENT_TYPES",
    "RolloutAdvanced",
    "RolloutCreated",
    "RolloutPaused",
    "RolloutResumed",
    "RolloutRollbackRefused",
    "RolloutRolledBack",
    "RolloutShadowChecked",
    "rollout_stream_id",
]


class RolloutCreated(Event, frozen=True, kw_only=True, tag="rollout.created"):
    """``target_kind`` is ``signatureProfile`` or ``signingKey``; ``subscriptions`` None = all.

    ``source_key_id``: the ACTIVE engine key when the rollout began (what the old signatures
    are made with; rollback needs it still ACTIVE or VERIFY_ONLY). ``dual_window_s``: how long
    a switched subscription gets both signatures (the keys' VERIFY_ONLY window).
    """

    rollout_id: str
    target_kind: str
    target: str
    source_key_id: str | None
    subscriptions: list[str] | None
    internal: list[str]
    dual_window_s: float
    at: str


class RolloutAdvanced(Event, frozen=True, kw_only=True, tag="rollout.advanced"):
    """A stage change (or a larger CUTOVER percent). Buckets below ``percent`` not switched
    before are switched at ``at``; COMPLETE switches every remaining one."""

    rollout_id: str
    from_stage: str
    stage: str
    from_percent: int
    percent: int
    at: str
    #: COMPLETE of an ``all`` rollout: the subscriptions it covered then (later ones are not)
    covered: list[str] | None = None


class RolloutPaused(Event, frozen=True, kw_only=True, tag="rollout.paused"):
    """``reason``: ``operator``, ``acceptance_below_baseline``, ``key_compromised``,
    ``rollback_refused``; the acceptance figures when automatic."""

    rollout_id: str
    reason: str
    key_id: str | None = None
    acceptance: float | None = None
    baseline_acceptance: float | None = None
    attempts: int | None = None
    at: str


class RolloutResumed(Event, frozen=True, kw_only=True, tag="rollout.resumed"):
    rollout_id: str
    at: str


class RolloutRolledBack(Event, frozen=True, kw_only=True, tag="rollout.rolled_back"):
    """Switched subscriptions are signed as before the rollout again."""

    rollout_id: str
    from_stage: str
    source_key_id: str | None
    source_key_state: str | None
    at: str


class RolloutRollbackRefused(Event, frozen=True, kw_only=True, tag="rollout.rollback_refused"):
    """The key the old signatures need is no longer ACTIVE or VERIFY_ONLY (revoked: leaked
    or retired). The rollout stays (or becomes) PAUSED."""

    rollout_id: str
    source_key_id: str | None
    source_key_state: str
    at: str


class RolloutShadowChecked(Event, frozen=True, kw_only=True, tag="rollout.shadow_checked"):
    """Target signatures made and verified beside the live path (SDK verifier), counted."""

    rollout_id: str
    checked: int
    mismatches: int
    reasons: dict[str, int]
    at: str


ROLLOUT_EVENT_TYPES = (
    "rollout.created",
    "rollout.advanced",
    "rollout.paused",
    "rollout.resumed",
    "rollout.rolled_back",
    "rollout.rollback_refused",
    "rollout.shadow_checked",
)


def rollout_stream_id(rollout_id: str) -> str:
    """The stream of one rollout of a signing change: ``rollout-<rolloutId>``."""
    return f"rollout-{rollout_id}"
