"""Release gates computed from the event log alone (SQL in ``engine/sql/queries/gates_*.sql``).

Each gate says ``pass``, ``fail`` or ``n/a`` (no data: never reported as a pass). The
application-layer gate is judged only for subscriptions with the receipt contract; for the
others it says ``UNOBSERVABLE``, which is neither a pass nor a failure.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import asyncpg

from hookproof.engine.db.queries import ENGINE_QUERIES

from ..rollouts.gate_result import FAIL, NA, PASS, UNOBSERVABLE, GateResult
from ..rollouts.gates import rollout_gates

__all__ = ["GateResult", "gate_report", "gates_failed"]


ROTATION_RATIO_MIN = 0.9995
RECONCILED_MIN = 0.99
RECONCILE_LIMIT_S = 15 * 60

SQL = ENGINE_QUERIES.named(
    "gates_false_activations",
    "gates_revoked_key_signatures",
    "gates_revoked_receipt_keys",
    "gates_rotation_acceptance",
    "gates_unknown_reconciled",
    "gates_dead_letter_owner",
    "gates_second_effect",
)


def _zero_gate(
    name: str, title: str, total: int, violations: int, examples: list[str], **detail: Any
) -> GateResult:
    status = NA if total == 0 else (PASS if violations == 0 else FAIL)
    return GateResult(
        name, title, status, violations, "= 0", {"checked": total, **detail}, list(examples)
    )


#: zero gates read straight from one query's ``total``, ``violations`` and ``examples``:
#: (query, gate name, title)
_FALSE_ACTIVATIONS = (
    "gates_false_activations",
    "challenge_false_activations",
    "activations without a verified challenge response for the current generation",
)
_DEAD_LETTER_OWNER = (
    "gates_dead_letter_owner",
    "dead_letters_without_owner",
    "dead letters without an owner",
)


async def _counted_gate(
    conn: asyncpg.Connection, since: datetime | None, query: str, name: str, title: str
) -> GateResult:
    """A zero gate whose query counts ``total`` and ``violations`` and lists ``examples``."""
    r = await conn.fetchrow(SQL[query], since)
    assert r is not None
    return _zero_gate(name, title, r["total"], r["violations"], r["examples"])


async def _revoked_keys(conn: asyncpg.Connection, since: datetime | None) -> GateResult:
    sig = await conn.fetchrow(SQL["gates_revoked_key_signatures"], since)
    rec = await conn.fetchrow(SQL["gates_revoked_receipt_keys"], since)
    assert sig is not None and rec is not None
    total = sig["total"] + rec["total"] - rec["undeterminable"]
    violations = sig["violations"] + rec["violations"]
    return _zero_gate(
        "revoked_key_acceptances",
        "endpoint acceptances of attempts signed under a key revoked before the admission, "
        "and receipts accepted under a retired receipt key generation",
        total,
        violations,
        [*sig["examples"], *rec["examples"]],
        acceptances=sig["total"],
        acceptancesUnderRevokedKeys=sig["violations"],
        acceptancesWithoutAdmission=sig["untraced"],
        acceptancesUnderKeysNotInLog=sig["unknown_keys"],
        receipts=rec["total"],
        receiptsUnderRetiredGeneration=rec["violations"],
        receiptsUndeterminable=rec["undeterminable"],
    )


async def _rotation_acceptance(conn: asyncpg.Connection, since: datetime | None) -> GateResult:
    r = await conn.fetchrow(SQL["gates_rotation_acceptance"], since)
    assert r is not None
    detail = {k: r[k] for k in r.keys()}
    title = "endpoint acceptance inside key rotation windows / baseline outside them"
    inside = r["in_accepted"] / r["in_admitted"] if r["in_admitted"] else None
    outside = r["out_accepted"] / r["out_admitted"] if r["out_admitted"] else None
    detail.update(insideRate=inside, baselineRate=outside)
    threshold = f">= {ROTATION_RATIO_MIN:g}"  # a ratio of two rates (it may pass 1)
    if inside is None or not outside:
        return GateResult("rotation_acceptance", title, NA, None, threshold, detail, unit="ratio")
    ratio = inside / outside
    status = PASS if ratio >= ROTATION_RATIO_MIN else FAIL
    return GateResult(
        "rotation_acceptance", title, status, round(ratio, 6), threshold, detail, unit="ratio"
    )


async def _unknown_reconciled(conn: asyncpg.Connection, since: datetime | None) -> GateResult:
    r = await conn.fetchrow(SQL["gates_unknown_reconciled"], since, RECONCILE_LIMIT_S)
    assert r is not None
    title = "UNKNOWN_TRANSPORT outcomes reconciled within 15 minutes"
    detail = {"unknown": r["total"], "reconciledInTime": r["reconciled"], "pending": r["pending"]}
    threshold = f">= {RECONCILED_MIN:.0%}"
    if r["total"] == 0:
        return GateResult("unknown_reconciled", title, NA, None, threshold, detail)
    share = r["reconciled"] / r["total"]
    status = PASS if share >= RECONCILED_MIN else FAIL
    return GateResult(
        "unknown_reconciled", title, status, round(share, 6), threshold, detail, r["examples"]
    )


async def _second_effect(conn: asyncpg.Connection, since: datetime | None) -> list[GateResult]:
    r = await conn.fetchrow(SQL["gates_second_effect"], since)
    assert r is not None
    receipts = _zero_gate(
        "second_applied_effect",
        "receipt-enabled deliveries with a second applied effect",
        r["receipt_deliveries"],
        r["violations"],
        r["examples"],
        confirmed=r["confirmed"],
    )
    unobservable = GateResult(
        "second_applied_effect_without_receipts",
        "deliveries without the receipt contract: application layer not observable",
        UNOBSERVABLE if r["unobservable"] else NA,
        None,
        "not judged",
        {"deliveries": r["unobservable"]},
    )
    return [receipts, unobservable]


async def gate_report(
    conn: asyncpg.Connection,
    since: datetime | None = None,
    *,
    archive_dir: Path | None = None,
) -> list[GateResult]:
    """Every release gate, from one repeatable-read snapshot of the log.

    With ``archive_dir``, archived segments holding events since ``since`` are read too (the
    gates then see hot and archived events alike); ``conn`` must then be a fresh session.
    """
    files: list[str] = []
    if archive_dir is not None:
        from ..archive.shadow import segments_since

        files = await segments_since(conn, since)
    async with conn.transaction(isolation="repeatable_read", readonly=not files):
        if files:
            from ..archive.shadow import shadow_events

            assert archive_dir is not None
            await shadow_events(conn, archive_dir, files)
        return [
            await _counted_gate(conn, since, *_FALSE_ACTIVATIONS),
            await _revoked_keys(conn, since),
            await _rotation_acceptance(conn, since),
            await _unknown_reconciled(conn, since),
            await _counted_gate(conn, since, *_DEAD_LETTER_OWNER),
            *await _second_effect(conn, since),
            *await _rollout_gates(conn, since),
        ]


async def _rollout_gates(conn: asyncpg.Connection, since: datetime | None) -> list[GateResult]:
    return await rollout_gates(conn, since)  # one gate per rollout of a signing change


def gates_failed(results: list[GateResult]) -> bool:
    return any(g.status == FAIL for g in results)
