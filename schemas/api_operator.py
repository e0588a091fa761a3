"""The operator's API answers as msgspec types (release gates, the engine key's rotation,
rollouts of a signing change): re-exported by ``api_out``, which the document reads."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

__all__ = [
    "EngineKeyRotated",
    "Gate",
    "GateReport",
    "Rollout",
    "RolloutCutoverFigures",
    "RolloutInternalFigures",
    "RolloutPage",
    "RolloutShadowFigures",
    "RolloutSwitch",
    "RolloutTargetOut",
]


class _Out(msgspec.Struct, kw_only=True, rename="camel"):
    pass


#: a gate's own figures (each gate has its own: see ``hookproof audit``)
GateDetail = Annotated[
    dict[str, Any], msgspec.Meta(extra_json_schema={"additionalProperties": True})
]


class Gate(_Out, kw_only=True):
    """A release gate's result (``status``: pass, fail, n/a or UNOBSERVABLE)."""

    gate: str
    title: str
    status: str
    value: int | float | None
    threshold: str
    detail: GateDetail
    examples: list[str]


class GateReport(_Out, kw_only=True):
    since: str | None
    gates: list[Gate]
    ok: bool


class EngineKeyRotated(_Out, kw_only=True):
    """``POST /v1/keys/rotate``: the promoted key, the subscriptions that proved it and the
    ones suspended (with their reasons)."""

    key_id: str
    key_generation: int
    previous_key_id: str | None
    proved: list[str]
    suspended: list[str]
    reasons: dict[str, str]


class RolloutTargetOut(_Out, kw_only=True):
    signature_profile: str | msgspec.UnsetType = msgspec.UNSET
    signing_key: str | msgspec.UnsetType = msgspec.UNSET


class RolloutSwitch(_Out, kw_only=True):
    percent: int
    at: str


class RolloutShadowFigures(_Out, kw_only=True):
    checked: int
    mismatches: int


class RolloutInternalFigures(_Out, kw_only=True):
    dual_signed: int


class RolloutCutoverFigures(_Out, kw_only=True):
    switched: int
    covered: int
    attempts: int
    decided_attempts: int
    acceptance: float | None
    baseline_attempts: int
    baseline_acceptance: float | None
    dual_signed: int


class Rollout(_Out, kw_only=True):
    """A rollout of a signing change; one read (not a list's item) adds its figures per
    stage (``shadow``, ``internal``, ``cutover``)."""

    id: str
    target: RolloutTargetOut
    stage: str
    percent: int
    state: str
    pause_reason: str | None
    source_key_id: str | None
    subscriptions: list[str] | Literal["all"]
    internal_subscriptions: list[str]
    dual_window_s: float
    switches: list[RolloutSwitch]
    version: int
    created_at: str
    updated_at: str
    shadow: RolloutShadowFigures | msgspec.UnsetType = msgspec.UNSET
    internal: RolloutInternalFigures | msgspec.UnsetType = msgspec.UNSET
    cutover: RolloutCutoverFigures | msgspec.UnsetType = msgspec.UNSET


class RolloutPage(_Out, kw_only=True):
    """``GET /v1/rollouts``: oldest first (a list's rollouts carry no figures)."""

    items: list[Rollout]
    next_cursor: str | None
