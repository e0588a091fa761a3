"""One release gate per rollout, from the log alone (``hookproof gates``).

A rollout passes when, in its stream and in the admissions recorded under it: the stages came
in order (SHADOW, INTERNAL, CUTOVER with a growing percent, COMPLETE); no shadow signature
failed to verify; every rollback returned to a key still ACTIVE or VERIFY_ONLY (a refusal is
followed by a pause); no switched subscription was dual-signed after its VERIFY_ONLY window;
and the switched subscriptions' acceptance is at least 99.95% of the unswitched baseline
(judged from 200 decided attempts; fewer: the rollout's gate is ``n/a`` unless it failed).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import asyncpg

from hookproof.events import RecordedEvent
from hookproof.events.rollout_events import (
    RolloutAdvanced,
    RolloutPaused,
    RolloutRollbackRefused,
    RolloutRolledBack,
)
from hookproof.events.sqlfiles import query

from .gate_result import FAIL, NA, PASS, GateResult
from .machine import STAGE_TRANSITIONS, RolloutView, evolve
from .service import AUTO_PAUSE_MIN_ATTEMPTS, AUTO_PAUSE_RATIO, figures_of, since_of

__all__ = ["rollout_gates"]

PKG = "hookproof.engine"


def _stream_violations(events: list[Any]) -> list[str]:
    out = []
    view: RolloutView | None = None
    for i, ev in enumerate(events):
        if isinstance(ev, RolloutAdvanced):
            ok = (ev.from_stage, ev.stage) in STAGE_TRANSITIONS and (
                ev.stage != "CUTOVER" or ev.percent > ev.from_percent
            )
            if not ok:
                out.append(f"stage order: {ev.from_stage} -> {ev.stage} {ev.percent}%")
        if isinstance(ev, RolloutRolledBack) and ev.source_key_state not in (
            None,
            "ACTIVE",
            "VERIFY_ONLY",
        ):
            out.append(f"rolled back to a {ev.source_key_state} key {ev.source_key_id}")
        if isinstance(ev, RolloutRollbackRefused):
            prior = view.state if view is not None else None
            nxt = events[i + 1] if i + 1 < len(events) else None
            if prior == "RUNNING" and not isinstance(nxt, RolloutPaused):
                out.append("rollback refused without a pause")
        view = evolve(view, ev)
    return out


async def rollout_gates(
    conn: asyncpg.Connection, since: datetime | None = None
) -> list[GateResult]:
    """One ``rollout:<id>`` gate per rollout in the log (``since`` filters nothing here:
    a rollout is judged whole)."""
    rows = await conn.fetch(query("rollout_events_all", PKG))
    streams: dict[str, list[Any]] = {}
    for r in rows:
        rec = RecordedEvent.from_record(r)
        streams.setdefault(rec.stream_id, []).append(rec.decode())
    out = []
    for events in streams.values():
        view: RolloutView | None = None
        for ev in events:
            view = evolve(view, ev)
        assert view is not None
        rid = view.rollout_id
        violations = _stream_violations(events)
        fig_rows = [
            dict(x) for x in await conn.fetch(query("rollout_figures", PKG), rid, since_of(view))
        ]
        figs = figures_of(view, fig_rows, 0, 0)
        if view.shadow_mismatches:
            violations.append(f"{view.shadow_mismatches} shadow signature(s) did not verify")
        late = 0
        for d in await conn.fetch(query("rollout_dual_admissions", PKG), rid, since_of(view)):
            switched = view.switched_at(d["subscription_id"] or "")
            if switched is None or d["stage"] not in ("CUTOVER", "COMPLETE"):
                continue
            if d["at"] > datetime.fromisoformat(switched) + timedelta(seconds=view.dual_window_s):
                late += 1
        if late:
            violations.append(f"{late} attempt(s) dual-signed after the VERIFY_ONLY window")
        cut = figs["cutover"]
        ratio = None
        if cut["acceptance"] is not None and cut["decidedAttempts"] >= AUTO_PAUSE_MIN_ATTEMPTS:
            base = cut["baselineAcceptance"] or 1.0
            ratio = round(cut["acceptance"] / base, 6)
            if ratio < AUTO_PAUSE_RATIO and view.state not in ("PAUSED", "ROLLED_BACK"):
                violations.append(
                    f"acceptance {ratio:.3f} of the baseline's (below {AUTO_PAUSE_RATIO:g})"
                    " and not paused"
                )
        if violations:
            status = FAIL
        elif ratio is not None or view.state in ("COMPLETE", "ROLLED_BACK"):
            status = PASS
        else:
            status = NA
        detail = {
            "state": view.state,
            "stage": view.stage,
            "percent": view.percent,
            "target": view.target,
            "pauseReason": view.pause_reason,
            **figs,
        }
        out.append(
            GateResult(
                f"rollout:{rid}",
                "rollout of a signing change: shadow first, stages in order, rollback only to a "
                "live key, dual signing within its window, acceptance >= 99.95% of baseline",
                status,
                ratio,
                f">= {AUTO_PAUSE_RATIO:g}",
                detail,
                violations,
                unit="ratio",  # acceptance over the baseline's
            )
        )
    return out
