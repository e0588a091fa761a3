"""Shared pieces of the endpoint-authentication tests (DESIGN.md section 14): publishing events
through the API, one dispatch pass, and a client certificate from a trustme CA."""

from __future__ import annotations

import ssl
from typing import Any

import trustme
from aiohttp import web

from .conftest import Harness, Seen

__all__ = ["answer_each", "client_auth", "dispatch", "mtls_endpoint_ctx", "publish"]


def answer_each(h: Harness, views: list[dict[str, Any]]) -> None:
    """Answer each subscription of ``views`` with its own SDK subscriber (one endpoint URL)."""
    subscribers = {v["id"]: h.subscriber(v) for v in views}

    async def raw(seen: Seen) -> web.StreamResponse:
        sub = subscribers[seen.header("Webhook-Subscription") or ""]
        status, headers, payload = await sub.handle("POST", h.endpoint.url, seen.headers, seen.body)
        h.endpoint.answers.append((status, payload))
        return web.Response(status=status, headers=headers, body=payload)

    h.endpoint.raw = raw


async def publish(h: Harness, prefix: str, n: int = 1) -> list[dict[str, Any]]:
    """Publish ``n`` events; the deliveries they planned."""
    planned: list[dict[str, Any]] = []
    for i in range(n):
        status, _, body = await h.api.call(
            "POST",
            "/v1/events",
            token=h.token,
            json={
                "eventId": f"{prefix}-{i}",
                "topic": "order.created",
                "version": "1.0",
                "aggregateId": f"{prefix}-agg-{i}",
                "aggregateVersion": 1,
                "occurredAt": "2026-01-01T00:00:00Z",
                "payload": {"n": i},
            },
        )
        assert status == 202, body
        planned.extend(body["deliveries"])
    return planned


async def dispatch(h: Harness) -> int:
    """Claim everything due and wait for the sends and their records."""
    d = h.engine.services.dispatcher
    n = await d.run_once()
    await d.drain()
    return n


def client_auth(ca: trustme.CA, name: str) -> dict[str, Any]:
    """An ``mtls`` auth object with a client certificate for ``name`` issued by ``ca``."""
    leaf = ca.issue_cert(name)
    return {
        "type": "mtls",
        "certificatePem": "".join(b.bytes().decode() for b in leaf.cert_chain_pems),
        "privateKeyPem": leaf.private_key_pem.bytes().decode(),
    }


def mtls_endpoint_ctx(
    server: ssl.SSLContext, *client_cas: trustme.CA, optional: bool = False
) -> ssl.SSLContext:
    """``server`` requiring (``optional``: verifying when given) a client certificate issued
    by one of ``client_cas``."""
    server.verify_mode = ssl.CERT_OPTIONAL if optional else ssl.CERT_REQUIRED
    for ca in client_cas:
        server.load_verify_locations(cadata=ca.cert_pem.bytes().decode())
    return server
