"""A rollout's timeline from its ``rollout-<id>`` stream (``hookproof audit rollout ID``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from hookproof.events import Event, EventStore
from hookproof.events import rollout_events as ro

from ..rollouts.machine import RolloutView, evolve
from .timeline import Entry, Timeline, timeline_entry, timeline_stream

__all__ = ["rollout_state_json", "rollout_timeline"]


def _outcome(ev: Event) -> tuple[str | None, str]:
    """(key id, what happened) of one rollout event."""
    if isinstance(ev, ro.RolloutCreated):
        scope = "all" if ev.subscriptions is None else f"{len(ev.subscriptions)} subscription(s)"
        return ev.source_key_id, (
            f"created: {ev.target_kind}={ev.target}, {scope}, {len(ev.internal)} internal"
        )
    if isinstance(ev, ro.RolloutAdvanced):
        pct = f" {ev.percent}%" if ev.stage == "CUTOVER" else ""
        return None, f"{ev.from_stage} -> {ev.stage}{pct}"
    if isinstance(ev, ro.RolloutPaused):
        figures = ""
        if ev.acceptance is not None:
            figures = f" (acceptance {ev.acceptance:.4%} vs {ev.baseline_acceptance:.4%})"
        return ev.key_id, f"paused: {ev.reason}{figures}"
    if isinstance(ev, ro.RolloutResumed):
        return None, "resumed"
    if isinstance(ev, ro.RolloutRolledBack):
        return ev.source_key_id, f"rolled back from {ev.from_stage} (key {ev.source_key_state})"
    if isinstance(ev, ro.RolloutRollbackRefused):
        return ev.source_key_id, f"rollback refused: key {ev.source_key_state}"
    if isinstance(ev, ro.RolloutShadowChecked):
        return None, f"shadow: {ev.checked} checked, {ev.mismatches} mismatch(es)"
    return None, ev.type


def rollout_state_json(v: RolloutView) -> dict[str, Any]:
    return {
        "state": v.state,
        "stage": v.stage,
        "percent": v.percent,
        "target": v.target,
        "targetKind": v.target_kind,
        "sourceKeyId": v.source_key_id,
        "pauseReason": v.pause_reason,
        "shadow": {"checked": v.shadow_checked, "mismatches": v.shadow_mismatches},
        "version": v.version,
    }


async def rollout_timeline(
    store: EventStore, rollout_id: str, *, as_of: datetime | None = None
) -> Timeline:
    events = await timeline_stream(store, "rollout", rollout_id, as_of)
    view: RolloutView | None = None
    entries: list[Entry] = []
    for rec in events:
        ev = rec.decode()
        key_id, outcome = _outcome(ev)
        view = evolve(view, ev, version=rec.stream_version)
        entries.append(
            timeline_entry(rec, None, key_id, outcome, f"{view.stage} {view.percent}%", view.state)
        )
    assert view is not None
    return Timeline("rollout", rollout_id, as_of, entries, rollout_state_json(view))
