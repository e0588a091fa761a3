"""``auth.type = oauth2`` (DESIGN.md section 14): client credentials (RFC 6749 section 4.4)
from a token server written here (real HTTPS, trustme), the token reused until it expires,
one refresh and one resend on a 401, ``auth_unavailable`` when no token can be had, a token
URL that resolves to a private address refused before any connect, and neither the secret
nor a token anywhere in the logs, the events, the error bodies or the metrics."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import unquote

import pytest
from aiohttp import web
from structlog.testing import capture_logs

from .auth_support import dispatch, publish
from .conftest import DnsServer, Harness, MakeHarness, Pki, Seen, SocketGuard

TOKEN_HOST = "token.hooks.test"


class TokenServer:
    """An OAuth2 token endpoint: client credentials with HTTP Basic; a fresh token each time."""

    def __init__(self, client_id: str, client_secret: str) -> None:
        self.client_id = client_id
        self.client_secret = client_secret
        self.issued: list[str] = []
        self.forms: list[dict[str, str]] = []
        self.fail = False
        self.delay = 0.0  # seconds before answering (a stalled token server)
        self.port = 0
        self._runner: web.AppRunner | None = None

    @property
    def url(self) -> str:
        return f"https://{TOKEN_HOST}:{self.port}/oauth/token"

    async def start(self, pki: Pki) -> TokenServer:
        app = web.Application()
        app.router.add_post("/oauth/token", self._handle)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0, ssl_context=pki.server_context())
        await site.start()
        self.port = self._runner.addresses[0][1]
        return self

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _handle(self, request: web.Request) -> web.Response:
        form = {k: str(v) for k, v in (await request.post()).items()}
        self.forms.append(form)
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.fail:
            return web.json_response({"error": "temporarily_unavailable"}, status=503)
        scheme, _, creds = request.headers.get("Authorization", "").partition(" ")
        user, _, password = base64.b64decode(creds or "").decode().partition(":")
        if (
            scheme != "Basic"
            or (unquote(user), unquote(password)) != (self.client_id, self.client_secret)
            or form.get("grant_type") != "client_credentials"
        ):
            return web.json_response({"error": "invalid_client"}, status=401)
        token = f"tok{len(self.issued)}-{secrets.token_urlsafe(24)}"
        self.issued.append(token)
        return web.json_response(
            {"access_token": token, "token_type": "Bearer", "expires_in": 3600}
        )


@pytest.fixture
async def token_server(pki: Pki, dns: DnsServer) -> AsyncIterator[TokenServer]:
    server = await TokenServer("client-1", f"cs-{secrets.token_urlsafe(24)}").start(pki)
    dns.records[TOKEN_HOST] = ["127.0.0.1"]
    try:
        yield server
    finally:
        await server.close()


def _bearer(seen: Seen) -> str | None:
    value = seen.header("Authorization") or ""
    return value.removeprefix("Bearer ") if value.startswith("Bearer ") else None


def guard_tokens(h: Harness, revoked: set[str], issued: list[str]) -> None:
    """The endpoint answers 401 to a request without a live token, else as the SDK does."""

    async def raw(seen: Seen) -> web.StreamResponse:
        token = _bearer(seen)
        if token is None or token in revoked or token not in issued:
            h.endpoint.answers.append((401, b""))
            return web.Response(status=401)
        await h.endpoint.ready.wait()
        assert h.endpoint.subscriber is not None
        status, headers, payload = await h.endpoint.subscriber.handle(
            "POST", h.endpoint.url, seen.headers, seen.body
        )
        h.endpoint.answers.append((status, payload))
        return web.Response(status=status, headers=headers, body=payload)

    h.endpoint.raw = raw


def _auth(server: TokenServer, **over: Any) -> dict[str, Any]:
    return {
        "type": "oauth2",
        "tokenUrl": server.url,
        "clientId": server.client_id,
        "clientSecret": server.client_secret,
        "scope": "webhooks:write",
        **over,
    }


async def _activated(h: Harness, server: TokenServer, revoked: set[str]) -> dict[str, Any]:
    guard_tokens(h, revoked, server.issued)
    view = await h.register(auth=_auth(server))
    h.endpoint.configure(h.subscriber(view))
    await h.engine.drain()
    assert (await h.get(view["id"]))["state"] == "ACTIVE"
    return view


async def test_token_reused_then_refreshed_once_on_a_401(
    make_harness: MakeHarness, token_server: TokenServer
) -> None:
    h = await make_harness(extra_allow=(("127.0.0.1", token_server.port),))
    revoked: set[str] = set()
    view = await _activated(h, token_server, revoked)
    assert view["auth"] == {
        "type": "oauth2",
        "digest": view["auth"]["digest"],
        "tokenUrl": token_server.url,
        "clientId": "client-1",
    }
    assert token_server.forms[0] == {"grant_type": "client_credentials", "scope": "webhooks:write"}
    await publish(h, "reuse", 3)
    assert await dispatch(h) == 3
    # one token for the challenge and all three deliveries
    assert len(token_server.issued) == 1
    assert [_bearer(s) for s in h.endpoint.requests] == [token_server.issued[0]] * 4
    assert [status for status, _ in h.endpoint.answers] == [200] * 4

    revoked.add(token_server.issued[0])  # the endpoint no longer takes it
    [planned] = await publish(h, "refresh")
    assert await dispatch(h) == 1
    assert len(token_server.issued) == 2  # refreshed once
    last_two = h.endpoint.requests[-2:]
    assert [_bearer(s) for s in last_two] == token_server.issued
    assert [status for status, _ in h.endpoint.answers[-2:]] == [401, 200]
    seen = await h.engine.services.reader.delivery(view["tenantId"], planned["deliveryId"])
    assert seen["state"] == "ENDPOINT_ACCEPTED"


async def test_auth_unavailable_when_the_token_server_fails(
    make_harness: MakeHarness, token_server: TokenServer
) -> None:
    h = await make_harness(extra_allow=(("127.0.0.1", token_server.port),))
    view = await _activated(h, token_server, set())
    # a new secret: its own event, the same generation, no token cached for it
    token_server.client_secret = f"cs-{secrets.token_urlsafe(24)}"
    token_server.fail = True
    status, _, body = await h.api.call(
        "PATCH",
        f"/v1/subscriptions/{view['id']}",
        token=h.token,
        json={"auth": _auth(token_server)},
        headers={"If-Match": f'"{view["generation"]}"'},
    )
    assert status == 200, body
    assert body["generation"] == view["generation"] and body["state"] == "ACTIVE"
    assert body["auth"]["digest"] != view["auth"]["digest"]
    [changed] = await h.events(view["id"], "subscription.auth_changed")
    assert changed["auth"]["digest"] == body["auth"]["digest"]
    assert await h.events(view["id"], "subscription.updated") == []
    before = len(h.endpoint.requests)
    [planned] = await publish(h, "unavailable")
    assert await dispatch(h) == 1
    assert len(h.endpoint.requests) == before  # nothing sent without a token
    seen = await h.engine.services.reader.delivery(view["tenantId"], planned["deliveryId"])
    assert seen["lastCode"] == "auth_unavailable"
    assert seen["attempts"][-1]["code"] == "auth_unavailable"
    assert seen["state"] != "DEAD_LETTER" and seen["nextAttemptAt"] is not None  # retried


async def test_a_token_url_resolving_to_a_private_address_is_refused(
    make_harness: MakeHarness,
    token_server: TokenServer,
    dns: DnsServer,
    socket_guard: SocketGuard,
) -> None:
    h = await make_harness(extra_allow=(("127.0.0.1", token_server.port),))
    dns.records["evil.hooks.test"] = ["10.20.30.40"]
    url = f"https://evil.hooks.test:{token_server.port}/oauth/token"
    view = await h.register(auth=_auth(token_server, tokenUrl=url))
    h.endpoint.configure(h.subscriber(view))
    await h.engine.drain()
    [failed] = await h.events(view["id"], "subscription.challenge_failed")
    assert failed["reason"] == "auth_unavailable"
    assert h.endpoint.requests == [] and token_server.forms == []
    assert not any(host == "10.20.30.40" for host, _ in socket_guard.attempts)
    # a literal private address is refused at the API
    status, _, body = await h.api.call(
        "POST",
        "/v1/subscriptions",
        token=h.token,
        json={
            **_sub(h),
            "auth": _auth(token_server, tokenUrl="https://10.0.0.1/oauth/token"),
        },
    )
    assert status == 400 and body["code"] == "auth_token_url_invalid"
    assert body["field"] == "auth.tokenUrl"


async def test_secret_and_tokens_never_in_logs_events_errors_or_metrics(
    make_harness: MakeHarness,
    token_server: TokenServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    metrics_token = secrets.token_urlsafe(16)
    h = await make_harness(
        extra_allow=(("127.0.0.1", token_server.port),),
        env={"HOOKPROOF_METRICS_TOKEN": metrics_token},
    )
    texts: list[str] = []
    revoked: set[str] = set()
    first_secret = token_server.client_secret
    with capture_logs() as logs:
        view = await _activated(h, token_server, revoked)
        await publish(h, "scan", 2)
        await dispatch(h)
        revoked.add(token_server.issued[0])
        await publish(h, "scan-refresh", 1)
        await dispatch(h)
        token_server.fail = True
        token_server.client_secret = "cs-second-" + secrets.token_urlsafe(24)
        status, _, body = await h.api.call(
            "PATCH",
            f"/v1/subscriptions/{view['id']}",
            token=h.token,
            json={"auth": _auth(token_server)},
            headers={"If-Match": f'"{view["generation"]}"'},
        )
        texts.append(json.dumps(body))
        planned = await publish(h, "scan-unavailable", 1)
        await dispatch(h)
        # error bodies: a refused auth object echoes none of it
        for bad in (
            _auth(token_server, tokenUrl="http://token.hooks.test/x"),
            {"type": "header", "name": "Webhook-Id", "value": token_server.client_secret},
            {"type": "header", "name": "X-Key", "value": token_server.client_secret + "\n"},
            {**_auth(token_server), "unknownMember": token_server.client_secret},
        ):
            status, _, body = await h.api.call(
                "POST", "/v1/subscriptions", token=h.token, json={**_sub(h), "auth": bad}
            )
            assert status == 400
            texts.append(json.dumps(body))
    assert len(token_server.issued) == 2
    for sid_view in (await h.get(view["id"]), view):
        texts.append(json.dumps(sid_view))
    texts.append(json.dumps(await h.history(view["id"])))
    for d in planned:
        texts.append(
            json.dumps(await h.engine.services.reader.delivery(view["tenantId"], d["deliveryId"]))
        )
    rows = await h.engine.pool.fetch("SELECT data::text AS d, metadata::text AS m FROM events")
    texts += [r["d"] + r["m"] for r in rows]
    status, _, metrics = await h.api.call("GET", "/metrics", token=metrics_token)
    assert status == 200
    texts.append(str(metrics))
    texts += [json.dumps(entry, default=str) for entry in logs]
    texts += [r.getMessage() + str(r.args) for r in caplog.records]
    everything = "\n".join(texts)
    for secret in (first_secret, token_server.client_secret, *token_server.issued):
        assert secret not in everything


def _sub(h: Harness) -> dict[str, Any]:
    from tests.subscriptions.conftest import sub_body

    return sub_body(endpoint=h.endpoint.url)


async def test_token_fetches_coalesce_have_a_deadline_and_failures_are_kept_briefly(
    make_harness: MakeHarness, token_server: TokenServer
) -> None:
    """Attempts that need a token at once share one fetch; a stalled token server costs one
    deadline, not one per attempt in a queue; its failure is the answer for 30 s (no fetch
    meanwhile), then the next attempt fetches again (issue 46). Real HTTPS token server,
    the engine's own egress transport."""
    from hookproof.engine.endpoint_auth import AuthSecret, TokenCache
    from hookproof.engine.endpoint_auth.sender import FAILURE_TTL_S
    from hookproof.events.subscription_events import EndpointAuthRef

    h = await make_harness(extra_allow=(("127.0.0.1", token_server.port),))
    now = [1000.0]
    cache = TokenCache(h.engine.services.transport, clock=lambda: now[0], deadline_s=1.0)
    ref = EndpointAuthRef(type="oauth2", digest="hmac-sha256:" + "0" * 64, material_id="m-1")
    secret = AuthSecret(
        type="oauth2",
        token_url=token_server.url,
        client_id=token_server.client_id,
        client_secret=token_server.client_secret,
    )

    async def ten() -> list[str | BaseException]:
        calls = [cache.token("sub_x", ref, secret) for _ in range(10)]
        return list(await asyncio.gather(*calls, return_exceptions=True))

    token_server.delay = 4.0  # stalled past the 1 s deadline (the handler still ends soon: teardown)
    start = time.monotonic()
    outcomes = await ten()
    took = time.monotonic() - start
    assert len(token_server.forms) == 1  # one fetch for the ten
    assert {str(o) for o in outcomes} == {"token_fetch_timeout"}, outcomes
    assert took < 5.0  # one deadline (1 s), not ten in a queue
    # failed recently: every attempt fails at once, nothing asked
    start = time.monotonic()
    assert {str(o) for o in await ten()} == {"token_fetch_timeout"}
    assert time.monotonic() - start < 0.5 and len(token_server.forms) == 1
    # a failure answered by the server itself is kept as well
    token_server.delay, token_server.fail = 0.0, True
    now[0] += FAILURE_TTL_S + 1
    assert {str(o) for o in await ten()} == {"status_503"}
    assert len(token_server.forms) == 2
    now[0] += FAILURE_TTL_S - 1
    assert {str(o) for o in await ten()} == {"status_503"}
    assert len(token_server.forms) == 2
    # once the failure is old, the next attempts fetch again, together
    token_server.fail = False
    now[0] += 2
    outcomes = await ten()
    assert len(token_server.forms) == 3 and len(token_server.issued) == 1
    assert outcomes == [token_server.issued[0]] * 10
