"""Consume a hookproof RabbitMQ destination with aio-pika: verify every message from its
headers, body and the destination URI, apply it once (by event id), send the receipt, and
answer challenges. No message is lost:

- ack only after the event is applied (and its receipt sent), or for a permanent refusal;
- a message that cannot be verified *yet* (``exc.transient``: the engine's keys could not be
  downloaded) or whose apply, receipt or challenge answer failed or timed out is nacked with
  requeue after ``RETRY_DELAY`` seconds, so RabbitMQ delivers it again;
- its age is judged from the message's ``timestamp`` property where the broker (or a
  timestamping plugin) sets one, else from its signature, against ``MAX_AGE`` (default 7
  days): a message that waited in the queue is not stale.

    HOOKPROOF_URL=https://hookproof.internal \
    AMQP_URL=amqps://user:pass@rabbit.example.com:5671/%2F \
    DESTINATION_URI=amqps://rabbit.example.com:5671/%2F/orders/order.created \
    QUEUE=orders python aio_pika_consumer.py

``DESTINATION_URI`` is the subscription's ``destination.uri`` as the engine shows it (the
signed ``@destination``). The exchange, the queue and their binding must exist before the
subscription is created (the README's "Delivering to a queue or stream"). Replays and
republished deliveries carry the same ids: deduplicate by ``message_id`` (the delivery id) or
by event id (here: by event id, in memory; use a unique key in your database).
``RECEIPT_KEY_ID`` and ``RECEIPT_KEY_PEM`` (an Ed25519 private key file) turn receipts on.
"""

from __future__ import annotations

import asyncio
import os

import aio_pika

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


async def answer(headers: dict[str, object], body: bytes, keys: JwksKeyResolver) -> None:
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


async def handle(message: aio_pika.abc.AbstractIncomingMessage, keys: JwksKeyResolver) -> None:
    headers, body = dict(message.headers), message.body
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
                    enqueued_at=message.timestamp,
                    max_age=MAX_AGE,
                )
                await apply(delivery)
    except MessageVerificationError as exc:
        if exc.transient:  # e.g. keys_unavailable: it will verify once the keys download
            print("retry later", exc.reason)
            await asyncio.sleep(RETRY_DELAY)
            await message.nack(requeue=True)
            return
        print("refused", exc.reason)  # never applied; dead-letter it, do not requeue
        await message.reject(requeue=False)
        return
    except Exception as exc:  # a timeout, the engine unreachable, apply failing: never drop
        print("retry later", type(exc).__name__, exc)
        await asyncio.sleep(RETRY_DELAY)
        await message.nack(requeue=True)
        return
    await message.ack()


async def main() -> None:
    keys = JwksKeyResolver(f"{ENGINE}/.well-known/hookproof/jwks.json")
    connection = await aio_pika.connect_robust(os.environ["AMQP_URL"])
    async with connection:
        channel = await connection.channel()
        await channel.set_qos(prefetch_count=16)
        queue = await channel.get_queue(os.environ.get("QUEUE", "orders"), ensure=True)
        async with queue.iterator() as messages:
            async for message in messages:
                await handle(message, keys)


if __name__ == "__main__":
    asyncio.run(main())
