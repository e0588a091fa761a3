"""The webhook endpoint: verify, answer challenges, apply, acknowledge, send receipts.

``Subscriber.handle(method, url, headers, body) -> (status, headers, body)`` is framework
free; ``aiohttp_handler(subscriber)`` adapts it to an aiohttp route.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from .applier import ApplierStore, ApplyOutcome, EventApplier, Handler, InMemoryStore, Outcome
from .applier import Event as Event
from .challenge import CHALLENGE_TYPE, ChallengeResponder, _EndpointVerifier
from .extras import require_aiohttp
from .keys import KeyResolver, SigningKey
from .profiles import PROFILES
from .receipts import Receipt, build_receipt, send_receipt
from .sigv1 import AsyncKeyResolver, NonceCache
from .tracing import consumer_span

__all__ = ["Response", "Subscriber", "aiohttp_handler"]

log = logging.getLogger("hookproof_subscriber")
Response = tuple[int, dict[str, str], bytes]
ReceiptSender = Callable[[Receipt], Awaitable[Any]]
_MAX_BODY = 1 << 20


def _json(status: int, doc: Mapping[str, Any], problem: bool = False) -> Response:
    ctype = "application/problem+json" if problem else "application/json"
    return status, {"Content-Type": ctype}, json.dumps(doc, separators=(",", ":")).encode()


def _problem(status: int, code: str, title: str) -> Response:
    return _json(
        status,
        {"type": "about:blank", "title": title, "status": status, "code": code},
        problem=True,
    )


class Subscriber(_EndpointVerifier):
    """Everything a hookproof subscriber endpoint needs, configured once.

    - *keys*: a ``JwksKeyResolver`` (ed25519) or ``SharedSecretResolver`` (hmac-sha256);
    - *endpoint*: the public URL registered with hookproof (the signed ``@target-uri``;
      defaults to the URL the framework reports);
    - *on_event*: ``(Event) -> None | Awaitable``; raise ``RejectEvent`` to reject for good;
    - *accept*: the signature profiles accepted (``hookproof.sig.v1``,
      ``standard-webhooks.v1``; both by default: a request carrying both during a rollout's
      dual window is accepted when one verifies; ``last_verified`` says which did);
    - *subscription_id*: pin deliveries to this subscription (intact replays refused);
    - *receipt_key* + *receipts_url*: send a signed ``applicationReceipt.v1`` for every
      consumed event (or pass *receipt_sender* to send them yourself).
    """

    def __init__(
        self,
        *,
        keys: KeyResolver | AsyncKeyResolver,
        on_event: Handler,
        endpoint: str | None = None,
        subscription_id: str | None = None,
        store: ApplierStore | None = None,
        receipt_key: SigningKey | None = None,
        receipt_key_generation: int = 1,
        receipts_url: str | None = None,
        receipt_sender: ReceiptSender | None = None,
        nonce_cache: NonceCache | None = None,
        clock: Callable[[], float] = time.time,
        first_version: int = 1,
        accept: tuple[str, ...] = PROFILES,
    ) -> None:
        self.keys = keys
        self.accept = accept
        self.last_verified: tuple[str, ...] = ()
        self.endpoint = endpoint
        self.subscription_id = subscription_id
        self.applier = EventApplier(on_event, store or InMemoryStore(), first_version=first_version)
        self.receipt_key = receipt_key
        self.receipt_key_generation = receipt_key_generation
        self.receipts_url = receipts_url
        self.nonce_cache = nonce_cache if nonce_cache is not None else NonceCache()
        self.clock = clock
        self.challenges = ChallengeResponder(
            keys=keys,
            endpoint=endpoint,
            subscription_id=subscription_id,
            receipt_key=receipt_key,
            nonce_cache=self.nonce_cache,
            clock=clock,
            accept=accept,
        )
        if receipt_sender is None and receipt_key is not None and receipts_url is not None:
            url, key = receipts_url, receipt_key

            async def _send(receipt: Receipt) -> Any:
                return await send_receipt(receipt, url=url, key=key)

            receipt_sender = _send
        self.receipt_sender = receipt_sender
        self._tasks: set[asyncio.Task[Any]] = set()
        self.receipt_errors = 0

    async def handle(self, method: str, url: str, headers: Any, body: bytes) -> Response:
        """Process one request; never raises for bad input (answers 4xx instead)."""
        if not isinstance(body, bytes | bytearray) or len(body) > _MAX_BODY:
            return _problem(413, "too_large", "body too large")
        body = bytes(body)
        try:
            peek = json.loads(body)
            is_challenge = isinstance(peek, dict) and peek.get("type") == CHALLENGE_TYPE
        except (ValueError, UnicodeError):
            is_challenge = False
        expected = {"webhook-subscription": self.subscription_id} if self.subscription_id else None
        res = await self.verify(
            method, url, headers, body, accept_not_before=is_challenge, expected=expected
        )
        self.last_verified = res.verified
        log.info("hookproof verify", extra={"hookproof": res.log_fields()})
        if not res.ok and res.reason == "keys_unavailable":  # transient: the sender retries
            return _problem(503, str(res.reason), "verification keys unavailable")
        if not res.ok:
            return _problem(401, str(res.reason), "signature refused")
        if is_challenge:
            ans = self.challenges.answer_verified(res, headers, body)
            return ans.status, dict(ans.headers), ans.body
        try:
            event = Event.from_delivery(body, headers)
        except (ValueError, TypeError, KeyError):
            return _problem(400, "malformed", "not a hookproof delivery body")
        if event.test:
            return self._confirm_test(event)
        with consumer_span(
            dict(_items(headers)),
            attributes={
                "hookproof.event_id": event.event_id,
                "hookproof.delivery_id": event.delivery_id,
            },
        ):
            try:
                outcomes = await self.applier.submit(event)
            except Exception:
                log.exception("hookproof apply failed", extra={"event_id": event.event_id})
                return _problem(503, "apply_failed", "event not applied; retry later")
        for o in outcomes:
            if o.record is not None and o.outcome in (
                Outcome.APPLIED,
                Outcome.REJECTED,
                Outcome.DUPLICATE,
            ):
                self._schedule_receipt(o)
        first = outcomes[0]
        doc: dict[str, Any] = {"eventId": event.event_id, "result": str(first.outcome)}
        if first.record is not None:
            doc["operationId"] = first.record.operation_id
        if first.outcome is Outcome.CONFLICT:
            return _json(409, doc)
        return _json(202 if first.outcome is Outcome.BUFFERED else 200, doc)

    def _confirm_test(self, event: Event) -> Response:
        """A test event (verified like any delivery): confirmed without applying it. The
        application is not called and the aggregate's order is untouched (a test's
        ``aggregateVersion`` is 0, which the applier would call stale); the receipt says the
        path works end to end, so the engine records the test APPLICATION_CONFIRMED."""
        operation_id = str(uuid.uuid4())
        if self.receipt_sender is not None:
            self._schedule(
                build_receipt(
                    subscription_id=event.subscription_id,
                    event_id=event.event_id,
                    delivery_id=event.delivery_id,
                    payload_digest=event.payload_digest,
                    result=str(Outcome.APPLIED),
                    operation_id=operation_id,
                    receipt_key_generation=self.receipt_key_generation,
                )
            )
        log.info("hookproof test event confirmed", extra={"event_id": event.event_id})
        doc = {"eventId": event.event_id, "result": "test", "operationId": operation_id}
        return _json(200, doc)

    def receipt_for(self, outcome: ApplyOutcome) -> Receipt | None:
        """The receipt for a consumed event (a duplicate re-sends the original receipt)."""
        rec = outcome.record
        if rec is None:
            return None
        return build_receipt(
            subscription_id=rec.subscription_id or outcome.event.subscription_id,
            event_id=rec.event_id,
            delivery_id=rec.delivery_id or outcome.event.delivery_id,
            payload_digest=rec.payload_digest,
            result=rec.result,
            operation_id=rec.operation_id,
            applied_at=rec.applied_at,
            receipt_key_generation=self.receipt_key_generation,
        )

    def _schedule_receipt(self, outcome: ApplyOutcome) -> None:
        if self.receipt_sender is None:
            return
        receipt = self.receipt_for(outcome)
        if receipt is not None:
            self._schedule(receipt)

    def _schedule(self, receipt: Receipt) -> None:
        task = asyncio.get_running_loop().create_task(self._send(receipt))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self, receipt: Receipt) -> None:
        assert self.receipt_sender is not None
        try:
            await self.receipt_sender(receipt)
        except Exception:
            self.receipt_errors += 1
            log.warning("hookproof receipt not sent", extra={"event_id": receipt.event_id})

    async def drain(self) -> None:
        """Wait for receipts being sent."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)


def _items(headers: Any) -> list[tuple[str, str]]:
    return list(headers.items()) if hasattr(headers, "items") else list(headers)


def aiohttp_handler(subscriber: Subscriber) -> Callable[[Any], Awaitable[Any]]:
    """An aiohttp request handler (``app.router.add_post(path, aiohttp_handler(sub))``)."""
    require_aiohttp("aiohttp_handler")
    from aiohttp import web

    async def handler(request: web.Request) -> web.StreamResponse:
        if request.content_length is not None and request.content_length > _MAX_BODY:
            return web.Response(status=413)
        body = await request.content.read(_MAX_BODY + 1)
        status, headers, payload = await subscriber.handle(
            request.method, str(request.url), list(request.headers.items()), body
        )
        return web.Response(status=status, headers=headers, body=payload)

    return handler
