"""JWKS resolver: caching, refresh on unknown key id, rate limit, states."""

from __future__ import annotations

import json

from aiohttp import web

from hookproof_subscriber import (
    JwksKeyResolver,
    KeyState,
    Reason,
    SigningKey,
    averify_request,
    public_jwk,
)

from .helpers import ENDPOINT, NOW, delivery


class FakeEngine:
    def __init__(self) -> None:
        self.keys: list[dict[str, object]] = []
        self.calls = 0
        self.fail = False

    def publish(self, key: SigningKey, **extra: object) -> None:
        self.keys.append(public_jwk(key) | {"use": "sig", "alg": "EdDSA"} | extra)

    async def fetch(self, url: str) -> bytes:
        self.calls += 1
        assert url.endswith("/.well-known/hookproof/jwks.json")
        if self.fail:
            raise OSError("engine down")
        return json.dumps({"keys": self.keys}).encode()


class Clock:
    t = 1000.0

    def __call__(self) -> float:
        return self.t


async def test_refresh_on_unknown_key_id_with_rate_limit_and_ttl() -> None:
    engine, clock = FakeEngine(), Clock()
    k1, k2 = SigningKey.generate_ed25519("k1"), SigningKey.generate_ed25519("k2")
    engine.publish(k1, state="ACTIVE")
    jwks = JwksKeyResolver.for_engine(
        "https://engine.example.com",
        fetch=engine.fetch,
        clock=clock,
        ttl=300,
        min_refresh_interval=10,
    )
    assert (await jwks.aresolve("k1")) is not None and engine.calls == 1
    assert (await jwks.aresolve("k1")) is not None and engine.calls == 1  # cached
    engine.publish(k2, state="NOT_BEFORE", nbf=NOW + 10)
    assert await jwks.aresolve("k2") is None and engine.calls == 1  # rate-limited
    clock.t += 11
    key = await jwks.aresolve("k2")
    assert key is not None and key.state is KeyState.NOT_BEFORE and key.not_before == NOW + 10
    assert engine.calls == 2
    engine.fail = True
    clock.t += 400  # stale, the refresh fails: the last good set stays
    assert await jwks.aresolve("k1") is not None and jwks.last_error == "OSError"
    engine.fail = False
    engine.keys = engine.keys[1:]  # k1 retired
    clock.t += 400
    assert await jwks.aresolve("k1") is None and jwks.key_ids == ["k2"]


async def test_verify_a_delivery_from_the_jwks() -> None:
    engine = FakeEngine()
    key = SigningKey.generate_ed25519("engine-k9")
    engine.publish(key, state="VERIFY_ONLY", exp=NOW + 3600)
    jwks = JwksKeyResolver("https://e/.well-known/hookproof/jwks.json", fetch=engine.fetch)
    headers, body = delivery("e1", 1, key=key)
    res = await averify_request("POST", ENDPOINT, headers, body, keys=jwks, now=NOW)
    assert res.reason is Reason.OK
    res = await averify_request("POST", ENDPOINT, headers, body, keys=jwks, now=NOW + 7200)
    assert res.reason is Reason.EXPIRED
    engine.keys[0]["state"] = "REVOKED"
    await jwks.refresh()
    res = await averify_request("POST", ENDPOINT, headers, body, keys=jwks, now=NOW)
    assert res.reason is Reason.REVOKED_KEY


async def test_invalid_entries_are_skipped() -> None:
    engine = FakeEngine()
    good = SigningKey.generate_ed25519("good")
    engine.publish(good)
    engine.keys += [
        {"kty": "RSA", "kid": "rsa"},
        {"kty": "OKP", "crv": "Ed25519", "kid": "x", "x": "short"},
        "junk",
    ]  # type: ignore[list-item]
    jwks = JwksKeyResolver("https://e/.well-known/hookproof/jwks.json", fetch=engine.fetch)
    await jwks.refresh()
    assert jwks.key_ids == ["good"]


async def test_default_fetch_uses_aiohttp_on_loopback() -> None:
    key = SigningKey.generate_ed25519("k-http")

    async def serve(request: web.Request) -> web.Response:
        return web.json_response({"keys": [public_jwk(key)]})

    app = web.Application()
    app.router.add_get("/.well-known/hookproof/jwks.json", serve)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    port = runner.addresses[0][1]
    try:
        jwks = JwksKeyResolver.for_engine(f"http://127.0.0.1:{port}")
        assert await jwks.aresolve("k-http") is not None
    finally:
        await runner.cleanup()
