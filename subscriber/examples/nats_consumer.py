"""Consume a hookproof NATS JetStream destination with nats-py: verify every message from its
headers, body and the destination URI, apply it once, send the receipt, and answer
challenges. No message is lost:

- ack only after the event is applied (and its receipt sent), or ``term`` for a permanent
  refusal;
- a message that cannot be verified *yet* (``exc.transient``: the engine's keys could not be
  downloaded) or whose apply, receipt or challenge answer failed or timed out is ``nak``-ed
  with a ``RETRY_DELAY`` so JetStream delivers it again;
- its age is judged from the stream's own time (``msg.metadata.timestamp``) against
  ``MAX_AGE`` (default 7 days): a message that waited in the stream is not stale;
- an empty fetch, a slow server or a lost connection is waited out, never fatal.

    HOOKPROOF_URL=https://hookproof.internal NATS_URL=tls://nats.example.com:4222 \
    DESTINATION_URI=tls://nats.example.com:4222/orders.created STREAM=ORDERS \
    python nats_consumer.py

``DESTINATION_URI`` is the subscription's ``destination.uri`` (the signed ``@destination``).
The stream must exist and cover the subject before the subscription is created (the README's
"Delivering to a queue or stream"). JetStream drops a republished delivery (same
``Nats-Msg-Id``) inside the stream's duplicate window; dedupe by event id beyond it.
``RECEIPT_KEY_ID`` and ``RECEIPT_KEY_PEM`` (an Ed25519 private key file) turn receipts on.
"""

from __future__ import annotations

import asyncio
import os
from urllib.parse import unquote

import nats
from nats.aio.msg import Msg

from hookproof_subscriber import (
    BrokerDelivery,
    JwksKeyResolver,
    MessageVerificationError,
    SigningKey,
    answer_broker_challenge,
    build_receipt,
    is_challenge_message,
    send_challenge_response,
    send_receipt,
    verify_broker_message,
)

ENGINE = os.environ.get("HOOKPROOF_URL", "http://127.0.0.1:8080")
DESTINATION = os.environ["DESTINATION_URI"]
MAX_AGE = int(os.environ.get("MAX_AGE", str(7 * 24 * 3600)))
RETRY_DELAY = float(os.environ.get("RETRY_DELAY", "5"))
TIMEOUT = float(os.environ.get("HANDLER_TIMEOUT", "30"))
RECEIPT_KEY = (
    SigningKey.ed25519_from_pem(
        os.environ["RECEIPT_KEY_ID"], open(os.environ["RECEIPT_KEY_PEM"], "rb").read()
    )
    if os.environ.get("RECEIPT_KEY_PEM")
    else None
)
applied: set[str] = set()  # use your database: a unique key on the event id


class Retry(Exception):
    """Leave the message for redelivery."""


async def apply(delivery: BrokerDelivery) -> None:
    event = delivery.event
    if event.event_id not in applied:
        print("apply", event.event_id, event.type, event.payload)
        applied.add(event.event_id)
    if RECEIPT_KEY is not None:
        receipt = build_receipt(
            subscription_id=event.subscription_id,
            event_id=event.event_id,
            delivery_id=event.delivery_id,
            payload_digest=event.payload_digest,
        )
        status, _ = await send_receipt(receipt, url=f"{ENGINE}/v1/receipts", key=RECEIPT_KEY)
        if status >= 500 or status == 429:
            raise Retry(f"receipt answered {status}")


async def answer(headers: dict[str, str], body: bytes, keys: JwksKeyResolver) -> None:
    ans = await answer_broker_challenge(headers, body, DESTINATION, keys=keys)
    if ans.reason == "keys_unavailable":
        raise Retry(ans.reason)
    if not ans.ok:
        print("challenge refused", ans.reason)  # permanent: acked, never answered
        return
    status, _ = await send_challenge_response(ENGINE, ans)
    if status >= 500 or status == 429:
        raise Retry(f"challenge response answered {status}")
    print("challenge answered", ans.challenge_id, status)


async def handle(msg: Msg, keys: JwksKeyResolver) -> None:
    headers, body = msg.headers or {}, msg.data
    try:
        async with asyncio.timeout(TIMEOUT):
            if is_challenge_message(body):
                await answer(headers, body, keys)
            else:
                delivery = await verify_broker_message(
                    headers,
                    body,
                    DESTINATION,
                    keys=keys,
                    enqueued_at=msg.metadata.timestamp,  # the stream's own time
                    max_age=MAX_AGE,
                )
                await apply(delivery)
    except MessageVerificationError as exc:
        if exc.transient:  # e.g. keys_unavailable: it will verify once the keys download
            print("retry later", exc.reason)
            await msg.nak(delay=RETRY_DELAY)
            return
        print("refused", exc.reason)
        await msg.term()  # permanent: never redelivered
        return
    except Exception as exc:  # a timeout, the engine unreachable, apply failing: never drop
        print("retry later", type(exc).__name__, exc)
        await msg.nak(delay=RETRY_DELAY)
        return
    await msg.ack()


async def consume(sub: nats.js.JetStreamContext.PullSubscription, keys: JwksKeyResolver) -> None:
    """Fetch and handle batches until cancelled; waits out timeouts and lost connections."""
    while True:
        try:
            batch = await sub.fetch(16, timeout=5)
        except TimeoutError:  # nothing to fetch (nats.errors.TimeoutError is one)
            continue
        except nats.errors.Error as exc:  # connection lost or slow: the client reconnects
            print("fetch failed", type(exc).__name__)
            await asyncio.sleep(1)
            continue
        for msg in batch:
            try:
                await handle(msg, keys)
            except Exception as exc:  # the ack/nak itself failed: JetStream redelivers
                print("ack failed", type(exc).__name__)


async def main() -> None:
    keys = JwksKeyResolver(f"{ENGINE}/.well-known/hookproof/jwks.json")
    nc = await nats.connect(os.environ.get("NATS_URL", "nats://127.0.0.1:4222"))
    js = nc.jetstream()
    subject = unquote(DESTINATION.rsplit("/", 1)[1])
    sub = await js.pull_subscribe(
        subject, durable="hookproof-consumer", stream=os.environ.get("STREAM")
    )
    await consume(sub, keys)


if __name__ == "__main__":
    asyncio.run(main())
