"""JWKS contents by state, the handler, and verification through rotation and compromise."""

from __future__ import annotations

import base64
import json

import asyncpg
import structlog
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from cryptography.hazmat.primitives import serialization

from hookproof.engine.api.jwks import jwks_handler
from hookproof.engine.keys import JWKS_PATH, KeyRing
from hookproof_subscriber import (
    Reason,
    StaticKeyResolver,
    jwk_to_verification_key,
    verify_request,
)

from .conftest import Clock
from .helpers import BODY, URL, signed_headers


async def test_jwks_by_state(ring: KeyRing, clock: Clock) -> None:
    g1 = await ring.ensure_active_engine_key()
    assert g1 is not None
    doc = await ring.jwks()
    assert [k["kid"] for k in doc["keys"]] == [g1.key_id]
    jwk = doc["keys"][0]
    assert {
        "kty": "OKP",
        "crv": "Ed25519",
        "alg": "EdDSA",
        "use": "sig",
        "state": "ACTIVE",
        "keyGeneration": 1,
    }.items() <= jwk.items()
    assert jwk["nbf"] == clock.epoch and "exp" not in jwk and "d" not in jwk
    g2 = await ring.rotate()
    states = {k["kid"]: k["state"] for k in (await ring.jwks())["keys"]}
    assert states == {g1.key_id: "ACTIVE", g2.key_id: "NOT_BEFORE"}
    nb = next(k for k in (await ring.jwks())["keys"] if k["kid"] == g2.key_id)
    assert "nbf" not in nb and "exp" not in nb
    clock.advance(60)
    await ring.promote(g2.key_id)
    doc = await ring.jwks()
    assert [k["kid"] for k in doc["keys"]] == [g2.key_id, g1.key_id]  # newest first
    old = doc["keys"][1]
    assert old["state"] == "VERIFY_ONLY"
    assert old["exp"] == clock.epoch + int(ring.settings.verify_only_window_s)
    assert doc["keys"][0]["nbf"] == clock.epoch
    g3 = await ring.rotate()
    await ring.compromise(g3.key_id)  # revoked keys are not published
    clock.advance(ring.settings.verify_only_window_s)
    await ring.retire_expired()
    assert [k["kid"] for k in (await ring.jwks())["keys"]] == [g2.key_id]


async def test_jwks_handler_is_cacheable(ring: KeyRing) -> None:
    await ring.ensure_active_engine_key()
    app = web.Application()
    app.router.add_get(JWKS_PATH, jwks_handler(ring))
    async with TestClient(TestServer(app, host="127.0.0.1")) as client:
        resp = await client.get(JWKS_PATH)
        assert resp.status == 200
        assert resp.headers["Content-Type"].startswith("application/jwk-set+json")
        assert "max-age=60" in resp.headers["Cache-Control"]
        body = await resp.json(content_type=None)
        assert body == json.loads(json.dumps(await ring.jwks()))
        etag = resp.headers["ETag"]
        again = await client.get(JWKS_PATH, headers={"If-None-Match": etag})
        assert again.status == 304
        await ring.rotate()
        changed = await client.get(JWKS_PATH, headers={"If-None-Match": etag})
        assert changed.status == 200 and changed.headers["ETag"] != etag


def _verify(headers: dict[str, str], resolver: object, now: int) -> Reason:
    return verify_request("POST", URL, headers, BODY, keys=resolver, now=now).reason  # type: ignore[arg-type]


async def test_rotation_half_old_half_new_until_window_ends(ring: KeyRing, clock: Clock) -> None:
    await ring.ensure_active_engine_key()
    old_key = await ring.signing_key()
    nxt = await ring.rotate()
    # before promotion the next key does not verify (NOT_BEFORE) but the old one does
    resolver = await ring.resolver()
    assert _verify(signed_headers(old_key, clock.epoch), resolver, clock.epoch) is Reason.OK
    await ring.promote(nxt.key_id)
    new_key = await ring.signing_key()
    assert new_key.key_id == nxt.key_id
    window = int(ring.settings.verify_only_window_s)
    # during the window: ten senders, half still on the old key; all verify
    for offset in (0, 60, window // 2, window - 1):
        now = clock.epoch + offset
        resolver = await ring.resolver()
        reasons = [_verify(signed_headers(k, now), resolver, now) for k in [old_key, new_key] * 5]
        assert reasons == [Reason.OK] * 10, offset
    # the same through the published JWKS (what a subscriber sees)
    jwks_resolver = StaticKeyResolver(
        jwk_to_verification_key(j) for j in (await ring.jwks())["keys"]
    )
    now = clock.epoch + window // 2
    assert _verify(signed_headers(old_key, now), jwks_resolver, now) is Reason.OK
    assert _verify(signed_headers(new_key, now), jwks_resolver, now) is Reason.OK
    # after the window (plus the verifier's own skew) the old key fails, the new one holds
    after = clock.epoch + window + 61
    resolver = await ring.resolver()
    assert _verify(signed_headers(old_key, after), resolver, after) is Reason.EXPIRED
    assert _verify(signed_headers(new_key, after), resolver, after) is Reason.OK
    # and once retired it is revoked for the engine's resolver, gone from the JWKS
    clock.advance(window)
    await ring.retire_expired()
    resolver = await ring.resolver()
    now = clock.epoch
    assert _verify(signed_headers(old_key, now), resolver, now) is Reason.REVOKED_KEY
    assert old_key.key_id not in {j["kid"] for j in (await ring.jwks())["keys"]}


async def test_after_compromise_revoked_key_verifies_zero_times(
    ring: KeyRing, clock: Clock
) -> None:
    await ring.ensure_active_engine_key()
    leaked = await ring.signing_key()
    sub = await ring.create_subscription_secret("sub_1")
    sub_key = await ring.signing_key_for_subscription("sub_1")
    pre = [signed_headers(leaked, clock.epoch) for _ in range(20)]
    pre_hmac = [signed_headers(sub_key, clock.epoch) for _ in range(20)]
    resolver = await ring.resolver(include_secrets=True)
    assert {_verify(h, resolver, clock.epoch) for h in pre + pre_hmac} == {Reason.OK}
    await ring.compromise(leaked.key_id)
    await ring.compromise(sub.key_id)
    resolver = await ring.resolver(include_secrets=True)
    fresh = [signed_headers(leaked, clock.epoch + i) for i in range(20)]
    fresh_hmac = [signed_headers(sub_key, clock.epoch + i) for i in range(20)]
    reasons = [_verify(h, resolver, clock.epoch + 1) for h in pre + fresh + pre_hmac + fresh_hmac]
    assert reasons.count(Reason.OK) == 0
    assert set(reasons) == {Reason.REVOKED_KEY}


async def test_no_secret_in_events_logs_or_errors(
    ring: KeyRing, pool: asyncpg.Pool, clock: Clock
) -> None:
    """Drive the whole life cycle, then scan the events table and every log line."""
    secrets_seen: list[bytes] = []
    with structlog.testing.capture_logs() as logs:
        for _ in range(2):
            await ring.ensure_active_engine_key()
            key = await ring.signing_key()
            assert key.private_key is not None
            secrets_seen.append(
                key.private_key.private_bytes(
                    serialization.Encoding.Raw,
                    serialization.PrivateFormat.Raw,
                    serialization.NoEncryption(),
                )
            )
            nxt = await ring.rotate()
            await ring.promote(nxt.key_id)
        key = await ring.signing_key()
        assert key.private_key is not None
        secrets_seen.append(
            key.private_key.private_bytes(
                serialization.Encoding.Raw,
                serialization.PrivateFormat.Raw,
                serialization.NoEncryption(),
            )
        )
        for sub in ("sub_1", "sub_2"):
            s1 = await ring.create_subscription_secret(sub)
            s2 = await ring.rotate_subscription_secret(sub)
            await ring.promote(s2.key_id)
            for s in (s1, s2):
                secrets_seen.append(base64.b64decode(s.secret))
        clock.advance(ring.settings.verify_only_window_s)
        await ring.retire_expired()
        await ring.compromise(key.key_id)
        await ring.destroy(key.key_id)
    forms: list[bytes] = []
    for raw in secrets_seen:
        forms += [
            raw,
            raw.hex().encode(),
            base64.b64encode(raw),
            base64.b64encode(raw).rstrip(b"="),
            base64.urlsafe_b64encode(raw).rstrip(b"="),
        ]
    rows = await pool.fetch("SELECT data, metadata, type FROM events")
    assert len(rows) > 10
    haystack = b"\n".join(bytes(r["data"]) + b"\0" + bytes(r["metadata"]) for r in rows)
    log_text = repr(logs).encode()
    assert logs, "expected transition log lines"
    for form in forms:
        assert form not in haystack
        assert form not in log_text
        assert form not in repr(ring).encode()
