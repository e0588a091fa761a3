"""End to end over loopback: engine stand-in -> aiohttp subscriber -> signed receipts."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import aiohttp
import pytest
from aiohttp import web

from hookproof_subscriber import (
    RECEIPT_V1,
    Event,
    JwksKeyResolver,
    Reason,
    SigningKey,
    StaticKeyResolver,
    Subscriber,
    aiohttp_handler,
    jwk_to_verification_key,
    parse_receipt,
    public_jwk,
    verify_request,
)

from .helpers import ENGINE_KEY, NOW, delivery

RECEIPT_KEY = SigningKey.generate_ed25519("rk-7")
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


class World:
    """A fake engine (JWKS + receipts endpoint) and a subscriber app, both on 127.0.0.1."""

    def __init__(self) -> None:
        self.receipts: list[tuple[Reason, dict[str, object]]] = []
        self.applied: list[Event] = []
        self.runners: list[web.AppRunner] = []

    async def _serve(self, app: web.Application) -> int:
        runner = web.AppRunner(app)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        self.runners.append(runner)
        return int(runner.addresses[0][1])

    async def start(self) -> None:
        receipt_keys = StaticKeyResolver([jwk_to_verification_key(public_jwk(RECEIPT_KEY))])

        async def jwks(request: web.Request) -> web.Response:
            return web.json_response({"keys": [public_jwk(ENGINE_KEY) | {"state": "ACTIVE"}]})

        async def receipts(request: web.Request) -> web.Response:
            body = await request.read()
            res = verify_request(
                "POST",
                str(request.url),
                list(request.headers.items()),
                body,
                keys=receipt_keys,
                profile=RECEIPT_V1,
            )
            self.receipts.append((res.reason, json.loads(body)))
            return web.json_response({}, status=202 if res.ok else 401)

        engine = web.Application()
        engine.router.add_get("/.well-known/hookproof/jwks.json", jwks)
        engine.router.add_post("/v1/receipts", receipts)
        eport = await self._serve(engine)
        self.engine_url = f"http://127.0.0.1:{eport}"

        sub_app = web.Application()
        sub_app.router.add_post("/hooks", self._dispatch)
        sport = await self._serve(sub_app)
        self.endpoint = f"http://127.0.0.1:{sport}/hooks"
        self.sub = Subscriber(
            keys=JwksKeyResolver.for_engine(self.engine_url),
            on_event=self.applied.append,
            endpoint=self.endpoint,
            subscription_id="sub_1",
            receipt_key=RECEIPT_KEY,
            receipts_url=self.engine_url + "/v1/receipts",
            clock=lambda: NOW + 2,
        )
        self.handler = aiohttp_handler(self.sub)

    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        return await self.handler(request)

    async def stop(self) -> None:
        for r in reversed(self.runners):
            await r.cleanup()


@pytest.fixture
async def world() -> AsyncIterator[World]:
    w = World()
    await w.start()
    yield w
    await w.stop()


async def _post(w: World, headers: dict[str, str], body: bytes) -> tuple[int, dict[str, object]]:
    async with aiohttp.ClientSession() as s, s.post(w.endpoint, data=body, headers=headers) as r:
        return r.status, json.loads(await r.read())


async def test_delivery_applies_once_and_sends_one_receipt_per_consumed_event(world: World):  # type: ignore[no-untyped-def]
    h1, b1 = delivery("e1", 1, url=world.endpoint, traceparent=TRACEPARENT)
    status, doc = await _post(world, h1, b1)
    assert (status, doc["result"]) == (200, "applied")
    assert world.applied[0].traceparent == TRACEPARENT
    # the 2xx was "lost": the engine retries the same delivery, re-signed
    h1b, _ = delivery("e1", 1, url=world.endpoint, now=NOW + 1)
    status, again = await _post(world, h1b, b1)
    assert (status, again["result"], again["operationId"]) == (200, "duplicate", doc["operationId"])
    await world.sub.drain()
    assert len(world.applied) == 1
    assert [r for r, _ in world.receipts] == [Reason.OK, Reason.OK]
    first, second = (d for _, d in world.receipts)
    assert first == second  # the duplicate re-sends the identical receipt (idempotent)
    receipt = parse_receipt(json.dumps(first).encode())
    assert (receipt.event_id, receipt.subscription_id, receipt.result) == ("e1", "sub_1", "applied")
    assert receipt.delivery_id == "dlv-e1-sub_1"
    assert receipt.payload_digest == h1["Content-Digest"]


async def test_out_of_order_is_buffered_then_applied_in_order(world: World):  # type: ignore[no-untyped-def]
    for eid, v, want in (
        ("e3", 3, (202, "buffered")),
        ("e2", 2, (202, "buffered")),
        ("e1", 1, (200, "applied")),
    ):
        status, doc = await _post(world, *delivery(eid, v, url=world.endpoint))
        assert (status, doc["result"]) == want
    await world.sub.drain()
    assert [e.aggregate_version for e in world.applied] == [1, 2, 3]
    assert sorted(d["eventId"] for _, d in world.receipts) == ["e1", "e2", "e3"]


async def test_refusals_over_http(world: World):  # type: ignore[no-untyped-def]
    h, b = delivery("e1", 1, url=world.endpoint)
    status, doc = await _post(world, h, b.replace(b'"v":1', b'"v": 1'))
    assert (status, doc["code"]) == (401, "digest_mismatch")
    status, doc = await _post(world, *delivery("e1", 1, url=world.endpoint, subscription="sub_2"))
    assert (status, doc["code"]) == (401, "bad_signature")  # another subscription's delivery
    status, doc = await _post(world, *delivery("e1", 1, url=world.endpoint + "x"))
    assert (status, doc["code"]) == (401, "bad_signature")
    status, doc = await _post(
        world, *delivery("e1", 1, url=world.endpoint, key=SigningKey.generate_ed25519("nope"))
    )
    assert (status, doc["code"]) == (401, "unknown_key")
    assert world.applied == [] and world.receipts == []


async def test_framework_free_handle_and_application_failure() -> None:
    calls: list[str] = []

    def on_event(e: Event) -> None:
        calls.append(e.event_id)
        if len(calls) == 1:
            raise RuntimeError("queue unavailable")

    sub = Subscriber(
        keys=StaticKeyResolver([ENGINE_KEY.verification_key()]),
        on_event=on_event,
        clock=lambda: NOW,
    )
    url = "https://hooks.example.com/hookproof"
    h, b = delivery("e1", 1)
    status, headers, body = await sub.handle("POST", url, h, b)
    assert status == 503 and json.loads(body)["code"] == "apply_failed"
    assert headers["Content-Type"] == "application/problem+json"
    h, b = delivery("e1", 1, now=NOW + 1)  # the engine's retry
    status, _, body = await sub.handle("POST", url, h, b)
    assert status == 200 and json.loads(body)["result"] == "applied"
    assert calls == ["e1", "e1"]
    assert (await sub.handle("POST", url, h, b))[0] == 401  # the same signed request: replay
    status, _, body = await sub.handle("POST", url, {"Content-Type": "text/plain"}, b"junk")
    assert status == 401 and json.loads(body)["code"] == "malformed"


async def test_keys_that_cannot_be_downloaded_answer_503_keys_unavailable() -> None:
    """A JWKS that cannot be fetched is not ``unknown_key`` (401): the key may exist, the
    receiver could not look; 503 ``keys_unavailable`` lets the engine retry."""
    runner = web.AppRunner(web.Application())  # a loopback server without the JWKS route
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    port = int(runner.addresses[0][1])
    try:
        applied: list[Event] = []
        sub = Subscriber(
            keys=JwksKeyResolver.for_engine(f"http://127.0.0.1:{port}"),
            on_event=applied.append,
            clock=lambda: NOW,
        )
        h, b = delivery("e1", 1)
        status, _, body = await sub.handle("POST", "https://hooks.example.com/hookproof", h, b)
        doc = json.loads(body)
        assert (status, doc["code"]) == (503, "keys_unavailable")
        assert applied == []
    finally:
        await runner.cleanup()
