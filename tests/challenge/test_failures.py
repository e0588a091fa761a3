"""Every way a challenge answer can be wrong leaves the subscription unactivated and a
``ChallengeFailed`` event with its own reason code."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from aiohttp import web

from .conftest import Harness, MakeHarness, Seen, TlsHttpServer


class FakeClock:
    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now


async def _registered_and_failed(
    h: Harness, *, configure: bool = True, **register: Any
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Register through the API, let the background challenge run, return (view, failures)."""
    view = await h.register(**register)
    if configure:
        h.endpoint.configure(h.subscriber(view, secret=view.get("secret")))
    await h.engine.drain()
    await _assert_not_activated(h, view["id"])
    return view, await h.events(view["id"], "subscription.challenge_failed")


async def _assert_not_activated(h: Harness, sid: str) -> None:
    state = await h.get(sid)
    assert state["state"] == "PENDING_CHALLENGE", state
    assert state["verifiedGeneration"] == 0
    assert await h.events(sid, "subscription.challenge_passed") == []
    changes = await h.events(sid, "subscription.state_changed")
    assert all(c["command"] != "activate" for c in changes)


def _set(name: str, value: Callable[[Any], Any]) -> Callable[[dict[str, Any], Seen], Any]:
    return lambda doc, _seen: {**doc, name: value(doc[name])}


@pytest.mark.parametrize(
    ("tamper", "reason"),
    [
        (_set("nonce", lambda n: ("B" if n[0] == "A" else "A") + n[1:]), "nonce_mismatch"),
        (_set("generation", lambda g: g + 1), "generation_mismatch"),
        (_set("generation", str), "generation_mismatch"),  # "1" is not 1
        (_set("endpointDigest", lambda d: "0" * 64), "endpoint_digest_mismatch"),
        (_set("challengeId", lambda c: c + "x"), "challenge_id_mismatch"),
        (_set("subscriptionId", lambda s: "sub_" + "0" * 24), "subscription_mismatch"),
        (_set("expiresAt", lambda e: e.replace("Z", "+00:00")), "expiry_mismatch"),
        (_set("keyId", lambda k: k + "x"), "key_id_mismatch"),
        (_set("type", lambda t: "hookproof.challenge.v1"), "wrong_type"),
        (lambda doc, _s: {k: v for k, v in doc.items() if k != "nonce"}, "field_missing"),
        (lambda doc, _s: {**doc, "extra": 1}, "unexpected_field"),
        (lambda doc, _s: {**doc, "proof": "AAAA"}, "unexpected_proof"),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
async def test_tampered_answer_is_refused(
    make_harness: MakeHarness, tamper: Any, reason: str
) -> None:
    h = await make_harness()
    h.endpoint.tamper = tamper
    view, failed = await _registered_and_failed(h)
    assert [f["reason"] for f in failed] == [reason]
    issued = await h.events(view["id"], "subscription.challenge_issued")
    assert failed[0]["challenge_id"] == issued[0]["challenge_id"]


async def test_hmac_answer_without_mac_is_refused(make_harness: MakeHarness) -> None:
    h = await make_harness()
    h.endpoint.tamper = lambda doc, _s: {k: v for k, v in doc.items() if k != "proof"}
    _, failed = await _registered_and_failed(h, signatureAlgorithm="hmac-sha256")
    assert [f["reason"] for f in failed] == ["missing_proof"]


async def test_hmac_answer_with_wrong_mac_is_refused(make_harness: MakeHarness) -> None:
    h = await make_harness()
    h.endpoint.tamper = _set("proof", lambda p: ("B" if p[0] == "A" else "A") + p[1:])
    _, failed = await _registered_and_failed(h, signatureAlgorithm="hmac-sha256")
    assert [f["reason"] for f in failed] == ["bad_proof"]


async def test_receipt_key_answer_without_signature_is_refused(make_harness: MakeHarness) -> None:
    from hookproof_subscriber import SigningKey, public_jwk

    h = await make_harness()
    rk = SigningKey.generate_ed25519("rk_1")
    view = await h.register(receiptKey={"keyId": "rk_1", "publicKeyJwk": public_jwk(rk)})
    # a subscriber that does not hold the receipt key answers without a proof
    h.endpoint.configure(h.subscriber(view))
    await h.engine.drain()
    await _assert_not_activated(h, view["id"])
    failed = await h.events(view["id"], "subscription.challenge_failed")
    assert [f["reason"] for f in failed] == ["missing_proof"]
    # and one holding another key proves nothing
    h.endpoint.configure(h.subscriber(view, receipt_key=SigningKey.generate_ed25519("rk_1")))
    out = await h.challenge(view["id"])
    assert out["challenge"] == {
        "challengeId": out["challenge"]["challengeId"],
        "passed": False,
        "reason": "bad_proof",
    }
    await _assert_not_activated(h, view["id"])


async def test_expired_answer_is_refused(make_harness: MakeHarness) -> None:
    h = await make_harness()
    clock = FakeClock()
    h.challenger.clock = clock

    async def time_passes(_seen: Seen) -> None:
        clock.now += timedelta(seconds=h.settings.challenge_ttl_s + 1)

    h.endpoint.before = time_passes
    _, failed = await _registered_and_failed(h)
    assert [f["reason"] for f in failed] == ["expired"]
    # the subscriber's own answer was a correct one: only the time was wrong
    assert h.endpoint.answers[0][0] == 200


async def test_earlier_valid_answer_replayed_to_a_new_challenge(make_harness: MakeHarness) -> None:
    h = await make_harness()
    view = await h.register()
    h.endpoint.configure(h.subscriber(view))
    await h.engine.drain()
    assert (await h.get(view["id"]))["state"] == "ACTIVE"
    earlier = h.endpoint.answers[0][1]

    async def replay(_seen: Seen) -> web.StreamResponse:
        return web.Response(status=200, body=earlier, content_type="application/json")

    h.endpoint.raw = replay
    out = await h.challenge(view["id"])
    assert out["challenge"]["passed"] is False
    assert out["challenge"]["reason"] == "response_replayed"
    assert out["state"] == "PENDING_CHALLENGE"  # the re-verification did not pass
    changes = await h.events(view["id"], "subscription.state_changed")
    assert [c["command"] for c in changes] == ["activate", "challenge"]
    failed = await h.events(view["id"], "subscription.challenge_failed")
    assert [f["reason"] for f in failed] == ["response_replayed"]
    assert len(await h.events(view["id"], "subscription.challenge_passed")) == 1


async def test_replay_to_the_same_consumed_challenge(make_harness: MakeHarness) -> None:
    h = await make_harness()
    seen: list[tuple[Any, Any]] = []
    original = h.challenger.complete

    async def recording(challenge: Any, result: Any, *, actor: str) -> Any:
        seen.append((challenge, result))
        return await original(challenge, result, actor=actor)

    h.challenger.complete = recording
    view = await h.register()
    h.endpoint.configure(h.subscriber(view))
    await h.engine.drain()
    assert (await h.get(view["id"]))["state"] == "ACTIVE"
    [(challenge, result)] = seen

    again = await original(challenge, result, actor="test:replay")
    assert again["passed"] is False and again["reason"] == "challenge_consumed"
    state = await h.get(view["id"])
    assert state["state"] == "ACTIVE"
    assert len(await h.events(view["id"], "subscription.challenge_passed")) == 1
    changes = await h.events(view["id"], "subscription.state_changed")
    assert [c["command"] for c in changes] == ["activate"]
    failed = await h.events(view["id"], "subscription.challenge_failed")
    assert [(f["challenge_id"], f["reason"]) for f in failed] == [
        (challenge.challenge_id, "challenge_consumed")
    ]

    # also after the subscription went back to PENDING_CHALLENGE: still no activation
    await h.api.call(
        "POST", f"/v1/subscriptions/{view['id']}/suspend", token=h.token, json={"reason": "t"}
    )
    await h.api.call("POST", f"/v1/subscriptions/{view['id']}/resume", token=h.token)
    h.endpoint.raw = _never_answer(h)
    await h.engine.drain()
    again = await original(challenge, result, actor="test:replay")
    assert again["reason"] == "challenge_consumed"
    assert (await h.get(view["id"]))["state"] != "ACTIVE"


def _never_answer(h: Harness) -> Callable[[Seen], Awaitable[web.StreamResponse]]:
    async def refuse(_seen: Seen) -> web.StreamResponse:
        return web.Response(status=503)

    return refuse


async def test_answer_for_another_subscription(make_harness: MakeHarness) -> None:
    h = await make_harness()
    a = await h.register()
    h.endpoint.configure(h.subscriber(a))
    await h.engine.drain()
    assert (await h.get(a["id"]))["state"] == "ACTIVE"
    answer_for_a = h.endpoint.answers[0][1]

    async def answer_a(_seen: Seen) -> web.StreamResponse:
        return web.Response(status=200, body=answer_for_a, content_type="application/json")

    h.endpoint.raw = answer_a
    _, failed = await _registered_and_failed(h, configure=False)
    assert [f["reason"] for f in failed] == ["subscription_mismatch"]
    assert (await h.get(a["id"]))["state"] == "ACTIVE"


@pytest.mark.parametrize("status", [301, 302, 307, 308])
async def test_redirect_is_a_failure_and_location_is_never_contacted(
    make_harness: MakeHarness,
    make_server: Callable[..., Awaitable[TlsHttpServer]],
    status: int,
) -> None:
    target = await make_server()  # a TLS server that would answer anything
    # even allowed, with its own DNS name, the Location is never fetched
    h = await make_harness(extra_allow=(("127.0.0.1", target.port),))
    h.dns.records["elsewhere.hooks.test"] = ["127.0.0.1"]
    location = f"https://elsewhere.hooks.test:{target.port}/grab"

    async def redirect(_seen: Seen) -> web.StreamResponse:
        return web.Response(status=status, headers={"Location": location})

    h.endpoint.raw = redirect
    _, failed = await _registered_and_failed(h, configure=False)
    assert [(f["reason"], f["location"]) for f in failed] == [("redirect", location)]
    assert target.connections == 0
    assert target.requests == []
    assert not any(q[0] == "elsewhere.hooks.test" for q in h.dns.queries)


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
async def test_oversized_answer_is_refused(make_harness: MakeHarness, chunked: bool) -> None:
    h = await make_harness(max_response_bytes=4096)

    async def big(seen: Seen) -> web.StreamResponse:
        # a correct answer, padded with whitespace past the bound
        doc = json.loads(seen.body)
        doc["type"] = "hookproof.challenge-response.v1"
        payload = json.dumps(doc).encode() + b" " * 8192
        if not chunked:
            return web.Response(status=200, body=payload, content_type="application/json")
        resp = web.StreamResponse(status=200, headers={"Content-Type": "application/json"})
        resp.enable_chunked_encoding()
        await resp.prepare(seen.request)
        await resp.write(payload)
        await resp.write_eof()
        return resp

    h.endpoint.raw = big
    _, failed = await _registered_and_failed(h, configure=False)
    assert [f["reason"] for f in failed] == ["response_too_large"]


async def test_slow_answer_past_the_timeout_is_refused(make_harness: MakeHarness) -> None:
    h = await make_harness(request_timeout_s=1.0)

    async def slow(_seen: Seen) -> None:
        await h.endpoint.hold(5.0)

    h.endpoint.before = slow
    started = asyncio.get_running_loop().time()
    _, failed = await _registered_and_failed(h)
    assert asyncio.get_running_loop().time() - started < 4.0
    assert [f["reason"] for f in failed] == ["response_timeout"]
