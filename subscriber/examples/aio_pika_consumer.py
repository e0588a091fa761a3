"""Consume a hookproof RabbitMQ destination with aio-pika: verify every message from its
headers, body and the destination URI, apply it once (by event id), and answer challenges.

    HOOKPROOF_URL=https://hookproof.internal \
    AMQP_URL=amqps://user:pass@rabbit.example.com:5671/%2F \
    DESTINATION_URI=amqps://rabbit.example.com:5671/%2F/orders/order.created \
    QUEUE=orders python aio_pika_consumer.py

``DESTINATION_URI`` is the subscription's ``destination.uri`` as the engine shows it (the
signed ``@destination``). Deduplicate by ``message_id`` (the delivery id) or by event id: a
delivery whose confirmation was lost is published again with the same ids.
"""

from __future__ import annotations

import asyncio
import os

import aio_pika

from hookproof_subscriber import (
    JwksKeyResolver,
    MessageVerificationError,
    NonceCache,
    answer_broker_challenge,
    is_challenge_message,
    send_challenge_response,
    verify_broker_message,
)

ENGINE = os.environ.get("HOOKPROOF_URL", "http://127.0.0.1:8080")
DESTINATION = os.environ["DESTINATION_URI"]
applied: set[str] = set()  # use your database: a unique key on the event id


async def apply(event_id: str, topic: str, payload: object) -> None:
    print("apply", event_id, topic, payload)


async def handle(
    message: aio_pika.abc.AbstractIncomingMessage, keys: JwksKeyResolver, nonces: NonceCache
) -> None:
    headers, body = dict(message.headers), message.body
    if is_challenge_message(body):
        answer = await answer_broker_challenge(
            headers, body, DESTINATION, keys=keys, nonce_cache=nonces
        )
        if answer.ok:
            status, _ = await send_challenge_response(ENGINE, answer)
            print("challenge answered", answer.challenge_id, status)
        else:
            print("challenge refused", answer.reason)
        await message.ack()
        return
    try:
        delivery = await verify_broker_message(
            headers, body, DESTINATION, keys=keys, nonce_cache=nonces
        )
    except MessageVerificationError as exc:
        print("refused", exc.reason)  # never applied; keep it for inspection, do not requeue
        await message.reject(requeue=False)
        return
    event = delivery.event
    if event.event_id not in applied:
        await apply(event.event_id, event.type, event.payload)
        applied.add(event.event_id)
    await message.ack()


async def main() -> None:
    keys = JwksKeyResolver(f"{ENGINE}/.well-known/hookproof/jwks.json")
    nonces = NonceCache()
    connection = await aio_pika.connect(os.environ["AMQP_URL"])
    async with connection:
        channel = await connection.channel()
        await channel.set_qos(prefetch_count=64)
        queue = await channel.declare_queue(os.environ.get("QUEUE", "orders"), durable=True)
        async with queue.iterator() as messages:
            async for message in messages:
                await handle(message, keys, nonces)


if __name__ == "__main__":
    asyncio.run(main())
