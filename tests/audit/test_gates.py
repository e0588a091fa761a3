"""Each release gate fails on a history built to break it and passes on a clean one."""

from __future__ import annotations

import asyncio
import json

import asyncpg
import pytest

from hookproof.engine.audit import gate_report, gates_failed
from hookproof.engine.db.database import connect_pool
from hookproof.events import EventStore
from tests.daemon import run_cli

from . import history as h


async def clean(store: EventStore) -> None:
    """Every gate has data and holds."""
    await h.put(store, "subscription-s1", h.registered("s1", receipt_gen=1), h.issued("s1", "c1"))
    await h.put(
        store,
        "subscription-s1",
        h.passed("s1", "c1"),
        h.state_changed("s1", "activate", "PENDING_CHALLENGE", "ACTIVE"),
    )
    await h.put(store, "key-k1", h.key_created("k1"))
    # Outside any rotation window: accepted, confirmed once; an unknown outcome reconciled.
    await h.put(store, "delivery-d1", h.planned("d1", receipts=True), h.admitted("d1", 1))
    await h.put(store, "delivery-d1", h.accepted("d1", 1), h.confirmed("d1", minute=1))
    await h.put(store, "delivery-d2", h.planned("d2", event_id="e2"), h.admitted("d2", 1))
    await h.put(store, "delivery-d2", h.failed("d2", 1, "UNKNOWN_TRANSPORT", minute=0))
    await h.put(store, "delivery-d2", h.admitted("d2", 2, reconciles=True, minute=5))
    await h.put(store, "delivery-d2", h.accepted("d2", 2, minute=5))
    # A rotation window: the next engine key published NOT_BEFORE, then activated.
    await h.put(store, "key-k2", h.key_created("k2", "NOT_BEFORE", generation=2))
    await h.put(store, "delivery-d3", h.planned("d3", event_id="e3"), h.admitted("d3", 1))
    await h.put(store, "delivery-d3", h.accepted("d3", 1))
    await h.put(store, "key-k2", h.key_activated("k2"))
    await h.put(store, "key-k1", h.key_revoked("k1", "retired"))
    await h.put(store, "delivery-d4", h.planned("d4", event_id="e4"), h.admitted("d4", 1, "k2"))
    await h.put(store, "delivery-d4", h.failed("d4", 1), h.dead("d4", 1))
    await h.put(store, "delivery-d5", h.planned("d5", event_id="e5"), h.admitted("d5", 1, "k2"))
    await h.put(store, "delivery-d5", h.accepted("d5", 1))


def _by_name(results: list) -> dict:  # type: ignore[type-arg]
    return {g.name: g for g in results}


async def test_clean_history_passes(pool: asyncpg.Pool) -> None:
    await clean(EventStore(pool))
    async with pool.acquire() as conn:
        results = _by_name(await gate_report(conn))
    assert {n: g.status for n, g in results.items()} == {
        "challenge_false_activations": "pass",
        "revoked_key_acceptances": "pass",
        "rotation_acceptance": "pass",
        "unknown_reconciled": "pass",
        "dead_letters_without_owner": "pass",
        "second_applied_effect": "pass",
        "second_applied_effect_without_receipts": "UNOBSERVABLE",
    }
    assert results["rotation_acceptance"].detail["in_admitted"] == 1
    assert results["rotation_acceptance"].detail["out_admitted"] == 5
    assert results["unknown_reconciled"].value == 1.0
    # a ratio of two rates is printed as a ratio, a share as a percentage (issue 36)
    rotation = results["rotation_acceptance"]
    assert rotation.unit == "ratio" and rotation.threshold == ">= 0.9995"
    assert rotation.shown() == f"{rotation.value:.3f}" and "%" not in rotation.shown()
    assert results["unknown_reconciled"].shown() == "100.0000%"
    assert results["second_applied_effect_without_receipts"].detail == {"deliveries": 4}
    assert not gates_failed(list(results.values()))


async def test_empty_log_is_not_a_pass(pool: asyncpg.Pool) -> None:
    async with pool.acquire() as conn:
        results = await gate_report(conn)
    assert {g.status for g in results} == {"n/a"}
    assert not gates_failed(results)


async def _broken(pool: asyncpg.Pool, gate: str) -> str:
    store = EventStore(pool)
    await clean(store)
    if gate == "challenge_false_activations":
        await h.put(store, "subscription-s2", h.registered("s2"))
        await h.put(store, "subscription-s2", h.state_changed("s2", "activate", "X", "ACTIVE"))
    elif gate == "challenge_replay":
        gate = "challenge_false_activations"
        await h.put(store, "subscription-s3", h.registered("s3"), h.issued("s3", "c3"))
        await h.put(store, "subscription-s3", h.failed_challenge("s3", "c3"))
        await h.put(
            store,
            "subscription-s3",
            h.passed("s3", "c3"),
            h.state_changed("s3", "activate", "PENDING_CHALLENGE", "ACTIVE"),
        )
    elif gate == "revoked_key_acceptances":
        await h.put(store, "key-k9", h.key_created("k9", generation=9))
        await h.put(store, "key-k9", h.key_revoked("k9"))
        await h.put(store, "delivery-d9", h.planned("d9", event_id="e9"), h.admitted("d9", 1, "k9"))
        await h.put(store, "delivery-d9", h.accepted("d9", 1))
    elif gate == "revoked_receipt_key":
        gate = "revoked_key_acceptances"
        await h.put(store, "subscription-s1", h.updated("s1", 1, 1, receipt_gen=2))
        await h.put(
            store, "delivery-d1", h.confirmed("d1", op="op1", result="duplicate", receipt_gen=1)
        )
    elif gate == "rotation_acceptance":
        await h.put(store, "key-k3", h.key_created("k3", "NOT_BEFORE", generation=3))
        for i in range(3):
            did = f"r{i}"
            await h.put(store, f"delivery-{did}", h.planned(did, event_id=did), h.admitted(did, 1))
            await h.put(store, f"delivery-{did}", h.failed(did, 1))
    elif gate == "unknown_reconciled":
        await h.put(store, "delivery-u1", h.planned("u1", event_id="u1"), h.admitted("u1", 1))
        await h.put(store, "delivery-u1", h.lost("u1", 1, minute=0))
        await h.put(store, "delivery-u1", h.admitted("u1", 2, reconciles=True, minute=20))
    elif gate == "dead_letters_without_owner":
        await h.put(store, "delivery-x1", h.planned("x1", event_id="x1"), h.admitted("x1", 1))
        await h.put(store, "delivery-x1", h.failed("x1", 1), h.dead("x1", 1, owner=" "))
    elif gate == "second_applied_effect":
        await h.put(store, "delivery-d1", h.confirmed("d1", op="op2", minute=9))
    return gate


@pytest.mark.parametrize(
    "variant",
    [
        "challenge_false_activations",
        "challenge_replay",
        "revoked_key_acceptances",
        "revoked_receipt_key",
        "rotation_acceptance",
        "unknown_reconciled",
        "dead_letters_without_owner",
        "second_applied_effect",
    ],
)
async def test_broken_history_fails_its_gate(pool: asyncpg.Pool, variant: str) -> None:
    gate = await _broken(pool, variant)
    async with pool.acquire() as conn:
        results = _by_name(await gate_report(conn))
    failing = {n for n, g in results.items() if g.status == "fail"}
    assert failing == {gate}, {n: (g.status, g.value, g.detail) for n, g in results.items()}
    assert results[gate].examples or gate == "rotation_acceptance"


async def test_since_limits_the_subjects(pool: asyncpg.Pool) -> None:
    await _broken(pool, "dead_letters_without_owner")
    later = await pool.fetchval("SELECT clock_timestamp()")
    async with pool.acquire() as conn:
        results = _by_name(await gate_report(conn, later))
    assert results["dead_letters_without_owner"].status == "n/a"


def test_cli_gates_exit_codes(db_url_sync: str) -> None:
    async def script(breaking: bool) -> None:
        pool = await connect_pool(db_url_sync, min_size=1, max_size=2)
        try:
            store = EventStore(pool)
            if breaking:
                await h.put(store, "delivery-x1", h.dead("x1", 1, owner=""))
            else:
                await clean(store)
        finally:
            await pool.close()

    env = {"HOOKPROOF_DATABASE_URL": db_url_sync}
    asyncio.run(script(False))
    r = run_cli(["gates"], env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "PASS" in r.stdout and "UNOBSERVABLE" in r.stdout and "no gate failed" in r.stdout
    asyncio.run(script(True))
    r = run_cli(["gates", "--json"], env)
    assert r.returncode == 1, r.stdout + r.stderr
    out = json.loads(r.stdout)
    assert not out["ok"]
    status = {g["gate"]: g["status"] for g in out["gates"]}
    assert status["dead_letters_without_owner"] == "fail"
