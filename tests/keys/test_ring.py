"""The key ring on a real Postgres: life cycle, events, caching, concurrency."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from hookproof.config import Settings
from hookproof.engine.keys import KeyRing, KeyTransitionForbidden, NoActiveKey
from hookproof.events import EventStore
from hookproof.events.key_events import KeyState, KeySuperseded

from .conftest import Clock


async def test_first_engine_key_is_active_and_idempotent(ring: KeyRing) -> None:
    first = await ring.ensure_active_engine_key(actor="test")
    again = await ring.ensure_active_engine_key(actor="test")
    assert first is not None and again is not None
    assert first.key_id == again.key_id
    assert first.state is KeyState.ACTIVE and first.generation == 1
    assert first.key_id.startswith("k_") and "-" not in first.key_id[:2]
    assert first.max_message_lifetime_s == 300
    assert len(await ring.keys()) == 1


async def test_concurrent_ensure_creates_one_key(
    pool: asyncpg.Pool, settings: Settings, clock: Clock
) -> None:
    rings = [KeyRing(pool, settings, clock=clock) for _ in range(4)]
    got = await asyncio.gather(*(r.ensure_active_engine_key() for r in rings))
    assert len({v.key_id for v in got if v is not None}) == 1
    assert len(await rings[0].keys()) == 1


async def test_rotate_promote_records_deadline_and_actor(
    ring: KeyRing, clock: Clock, pool: asyncpg.Pool
) -> None:
    old = await ring.ensure_active_engine_key(actor="boot")
    assert old is not None
    nxt = await ring.rotate(actor="alice")
    assert nxt.state is KeyState.NOT_BEFORE and nxt.generation == 2
    assert (await ring.signing_key()).key_id == old.key_id  # NOT_BEFORE never signs
    clock.advance(10)
    promoted = await ring.promote(nxt.key_id, actor="alice")
    assert promoted.state is KeyState.ACTIVE
    assert (await ring.signing_key()).key_id == nxt.key_id
    old_now = await ring.get(old.key_id)
    assert old_now.state is KeyState.VERIFY_ONLY
    window = ring.settings.verify_only_window_s
    assert (old_now.verify_only_until - clock.now).total_seconds() == window
    stream = await EventStore(pool).read_stream(f"key-{old.key_id}")
    sup = stream[-1].decode()
    assert isinstance(sup, KeySuperseded) and sup.superseded_by == nxt.key_id
    assert (sup.max_queue_delay_s, sup.max_retry_window_s, sup.clock_skew_s) == (600, 3000, 120)
    assert stream[-1].meta().actor == "alice"
    assert stream[0].meta().actor == "boot"


async def test_retire_expired_only_after_deadline(ring: KeyRing, clock: Clock) -> None:
    old = await ring.ensure_active_engine_key()
    assert old is not None
    await ring.promote((await ring.rotate()).key_id)
    assert await ring.retire_expired() == []
    clock.advance(ring.settings.verify_only_window_s)
    retired = await ring.retire_expired()
    assert [v.key_id for v in retired] == [old.key_id]
    assert retired[0].state is KeyState.REVOKED and retired[0].revoke_reason == "retired"
    assert await ring.retire_expired() == []


async def test_rollback_rules(ring: KeyRing, clock: Clock) -> None:
    g1 = await ring.ensure_active_engine_key()
    assert g1 is not None
    g2 = await ring.promote((await ring.rotate()).key_id)
    back = await ring.rollback(g1.key_id, actor="ops")
    assert back.state is KeyState.ACTIVE
    assert (await ring.get(g2.key_id)).state is KeyState.VERIFY_ONLY
    assert (await ring.signing_key()).key_id == g1.key_id
    # rolling back to the ACTIVE key or a NOT_BEFORE one is refused
    g3 = await ring.rotate()
    for kid in (g1.key_id, g3.key_id):
        with pytest.raises(KeyTransitionForbidden) as info:
            await ring.rollback(kid)
        assert info.value.code == "rollback_refused"
    # a compromised generation is never rolled back to
    await ring.compromise(g2.key_id)
    with pytest.raises(KeyTransitionForbidden) as info:
        await ring.rollback(g2.key_id)
    assert info.value.code == "rollback_refused"
    # nor one whose VERIFY_ONLY window ended
    await ring.promote(g3.key_id)
    clock.advance(ring.settings.verify_only_window_s)
    with pytest.raises(KeyTransitionForbidden) as info:
        await ring.rollback(g1.key_id)
    assert info.value.code == "rollback_refused"


async def test_promote_refuses_older_generation_and_verify_only(ring: KeyRing) -> None:
    g1 = await ring.ensure_active_engine_key()
    assert g1 is not None
    g2 = await ring.rotate()
    g3 = await ring.rotate()
    await ring.promote(g3.key_id)
    with pytest.raises(KeyTransitionForbidden) as info:
        await ring.promote(g2.key_id)
    assert info.value.code == "generation_not_newer"
    with pytest.raises(KeyTransitionForbidden) as info:
        await ring.promote(g1.key_id)  # VERIFY_ONLY: that is a rollback
    assert info.value.code == "key_transition_forbidden"
    abandoned = await ring.abandon(g2.key_id)
    assert abandoned.state is KeyState.REVOKED and abandoned.revoke_reason == "abandoned"


async def test_compromise_pauses_signing_everywhere(
    pool: asyncpg.Pool, settings: Settings, clock: Clock
) -> None:
    dispatcher = KeyRing(pool, settings, clock=clock)
    operator = KeyRing(pool, settings, clock=clock)
    key = await dispatcher.ensure_active_engine_key()
    assert key is not None
    assert (await dispatcher.signing_key()).key_id == key.key_id  # now cached
    report = await operator.compromise(key.key_id, actor="ops")
    assert report.signing_paused and report.active_key_id is None
    assert report.previous_state == "ACTIVE" and report.generation == 1
    with pytest.raises(NoActiveKey) as info:
        await dispatcher.signing_key()  # the other process's cache is invalidated
    assert info.value.code == "no_active_key"
    assert await dispatcher.ensure_active_engine_key() is None  # never silently re-created
    with pytest.raises(KeyTransitionForbidden):
        await operator.compromise(key.key_id)
    # recovery: publish and promote a new key explicitly
    nxt = await operator.rotate()
    await operator.promote(nxt.key_id)
    assert (await dispatcher.signing_key()).key_id == nxt.key_id


async def test_compromise_reports_newer_generations(ring: KeyRing) -> None:
    g1 = await ring.ensure_active_engine_key()
    assert g1 is not None
    g2 = await ring.rotate()
    report = await ring.compromise(g1.key_id)
    assert report.newer_keys == (g2.key_id,)
    assert report.signing_paused


async def test_subscription_secrets(ring: KeyRing) -> None:
    first = await ring.create_subscription_secret("sub_1", actor="api")
    kid, secret_b64 = first
    assert "hidden" in repr(first) and secret_b64 not in repr(first)
    import base64

    raw = base64.b64decode(secret_b64, validate=True)
    assert len(raw) == 32
    assert await ring.secret_for(kid) == raw
    signer = await ring.signing_key_for_subscription("sub_1")
    assert signer.key_id == kid and signer.alg == "hmac-sha256" and signer.secret == raw
    nxt = await ring.rotate_subscription_secret("sub_1")
    v = await ring.get(nxt.key_id)
    assert v.state is KeyState.NOT_BEFORE and v.generation == 2 and v.subscription_id == "sub_1"
    assert (await ring.signing_key_for_subscription("sub_1")).key_id == kid
    await ring.promote(nxt.key_id)
    assert (await ring.signing_key_for_subscription("sub_1")).key_id == nxt.key_id
    # other subscriptions have their own generations; engine keys are untouched
    other = await ring.create_subscription_secret("sub_2")
    assert (await ring.get(other.key_id)).generation == 1
    with pytest.raises(NoActiveKey):
        await ring.signing_key()
    # a shared secret is never in the JWKS
    assert (await ring.jwks())["keys"] == []
