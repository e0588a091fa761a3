"""``auth.type = mtls`` (DESIGN.md section 14): the client certificate is presented in every
handshake to the endpoint, challenge included; an endpoint that requires one accepts nothing
without it or with another subscription's; the pool never lets a connection made with one
identity carry another's request. Real TLS (trustme), a real engine and Postgres."""

from __future__ import annotations

import asyncio

import trustme
from aiohttp import web

from .auth_support import answer_each, client_auth, dispatch, mtls_endpoint_ctx, publish
from .conftest import MakeHarness, Pki, Seen


def _cn(peer_cert: object) -> str | None:
    if not isinstance(peer_cert, dict):
        return None
    for rdn in peer_cert.get("subject", ()):
        for key, value in rdn:
            if key == "commonName":
                return str(value)
    # trustme puts the name in subjectAltName
    for kind, value in peer_cert.get("subjectAltName", ()):
        if kind == "DNS":
            return str(value)
    return None


async def test_mtls_endpoint_activates_and_receives_deliveries(
    make_harness: MakeHarness, pki: Pki
) -> None:
    client_ca = trustme.CA()
    h = await make_harness(endpoint_ctx=mtls_endpoint_ctx(pki.server_context(), client_ca))
    auth = client_auth(client_ca, "client-a.test")
    view = await h.register(auth=auth)
    # write-only: the answer names the kind and the certificate's digest, never the key
    assert view["auth"]["type"] == "mtls"
    assert view["auth"]["certificateSha256"].startswith("sha256:")
    assert auth["privateKeyPem"] not in str(view)
    h.endpoint.configure(h.subscriber(view))
    await h.engine.drain()
    assert (await h.get(view["id"]))["state"] == "ACTIVE"
    await publish(h, "mtls-ok", 3)
    assert await dispatch(h) == 3
    assert len(h.endpoint.requests) == 4  # the challenge and three deliveries
    assert all(_cn(seen.peer_cert) == "client-a.test" for seen in h.endpoint.requests)
    assert [status for status, _ in h.endpoint.answers] == [200] * 4


async def test_without_a_certificate_or_with_another_nothing_is_accepted(
    make_harness: MakeHarness, pki: Pki
) -> None:
    client_ca, other_ca = trustme.CA(), trustme.CA()
    h = await make_harness(endpoint_ctx=mtls_endpoint_ctx(pki.server_context(), client_ca))
    bare = await h.register()
    # another subscription's certificate: issued for it by a CA this endpoint does not trust
    other = await h.register(auth=client_auth(other_ca, "client-b.test"))
    h.endpoint.configure(h.subscriber(bare))
    await h.engine.drain()
    for view in (bare, other):
        state = await h.get(view["id"])
        assert state["state"] == "PENDING_CHALLENGE"
        [failed] = await h.events(view["id"], "subscription.challenge_failed")
        assert failed["reason"] in {"tls_error", "connection_reset"}
    assert h.endpoint.requests == []  # the handshake failed: no request reached the app


async def test_two_identities_on_one_origin_never_share_a_connection(
    make_harness: MakeHarness, pki: Pki
) -> None:
    ca_a, ca_b = trustme.CA(), trustme.CA()
    ctx = mtls_endpoint_ctx(pki.server_context(), ca_a, ca_b, optional=True)
    h = await make_harness(endpoint_ctx=ctx)
    known = asyncio.Event()

    async def hold(seen: Seen) -> web.StreamResponse:  # until every subscription is known
        await asyncio.wait_for(known.wait(), 10)
        assert h.endpoint.raw is not None
        return await h.endpoint.raw(seen)

    h.endpoint.raw = hold
    a = await h.register(auth=client_auth(ca_a, "client-a.test"))
    b = await h.register(auth=client_auth(ca_b, "client-b.test"))
    plain = await h.register()
    answer_each(h, [a, b, plain])
    known.set()
    await h.engine.drain()
    for view in (a, b, plain):
        assert (await h.get(view["id"]))["state"] == "ACTIVE", view["id"]
    for round_ in range(3):
        await publish(h, f"share-{round_}", 2)
        assert await dispatch(h) == 6
    expected = {a["id"]: "client-a.test", b["id"]: "client-b.test", plain["id"]: None}
    by_connection: dict[object, set[str | None]] = {}
    for seen in h.endpoint.requests:
        sid = seen.header("Webhook-Subscription")
        assert sid in expected
        assert _cn(seen.peer_cert) == expected[sid]
        by_connection.setdefault(seen.peer, set()).add(_cn(seen.peer_cert))
    assert len(h.endpoint.requests) == 3 + 18
    # connections were reused (the pool works) and none carried two identities
    assert len(by_connection) < len(h.endpoint.requests)
    assert all(len(names) == 1 for names in by_connection.values())


async def test_a_certificate_and_key_that_do_not_match_are_refused(
    make_harness: MakeHarness,
) -> None:
    h = await make_harness()
    ca = trustme.CA()
    auth = client_auth(ca, "client-a.test")
    auth["privateKeyPem"] = client_auth(ca, "client-b.test")["privateKeyPem"]
    status, _, body = await h.api.call(
        "POST",
        "/v1/subscriptions",
        token=h.token,
        json={**_body(h), "auth": auth},
    )
    assert status == 400 and body["code"] == "auth_certificate_invalid"
    assert body["field"] == "auth.certificatePem"
    assert auth["privateKeyPem"] not in str(body)


def _body(h: object) -> dict[str, object]:
    from tests.subscriptions.conftest import sub_body

    return sub_body(endpoint=h.endpoint.url)  # type: ignore[attr-defined]
