"""A subscriber built only on the SDK, mounted on the tests' HTTPS server."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from hookproof_subscriber import (
    Event,
    InMemoryStore,
    Receipt,
    SigningKey,
    Subscriber,
    aiohttp_handler,
    send_receipt,
)
from hookproof_subscriber.applier import ApplierStore
from tests.receipts.harness import Api, HookServer, jwks_resolver

__all__ = ["SdkApp", "is_challenge", "sdk_app"]


def is_challenge(request: web.Request) -> bool:
    return request.headers.get("Webhook-Id", "").startswith("chl_")


@dataclass
class SdkApp:
    sdk: Subscriber
    url: str
    effects: list[tuple[str, int]] = field(default_factory=list)  # (eventId, aggregateVersion)
    answers: list[tuple[int, dict[str, Any]]] = field(default_factory=list)  # engine's answers
    sent: list[Receipt] = field(default_factory=list)
    gate: asyncio.Event | None = None


def sdk_app(
    api: Api,
    hooks: HookServer,
    path: str,
    *,
    receipt_key: SigningKey | None = None,
    signer: SigningKey | None = None,
    store: ApplierStore | None = None,
    gated: bool = False,
) -> SdkApp:
    """``receipt_key``: registered and used for challenges and receipts; ``signer``: sign
    receipts with this key instead (e.g. one the engine does not know)."""
    url = hooks.url(path)
    app: SdkApp

    def on_event(event: Event) -> None:
        app.effects.append((event.event_id, event.aggregate_version))

    key = signer or receipt_key

    async def sender(receipt: Receipt) -> None:
        assert key is not None
        if app.gate is not None:
            await app.gate.wait()
        app.sent.append(receipt)
        status, body = await send_receipt(receipt, url=api.receipts_url, key=key)
        app.answers.append((status, json.loads(body)))

    sdk = Subscriber(
        keys=jwks_resolver(api),
        on_event=on_event,
        endpoint=url,
        store=store or InMemoryStore(),
        receipt_key=receipt_key,
        receipt_sender=sender if key is not None else None,
    )
    app = SdkApp(sdk, url, gate=asyncio.Event() if gated else None)
    hooks.mount(path, aiohttp_handler(sdk))
    return app
