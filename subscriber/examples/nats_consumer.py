"""Consume a hookproof NATS JetStream destination with nats-py: verify every message from its
headers, body and the destination URI, apply it once, and answer challenges.

    HOOKPROOF_URL=https://hookproof.internal NATS_URL=tls://nats.example.com:4222 \
    DESTINATION_URI=tls://nats.example.com:4222/orders.created STREAM=ORDERS \
    python nats_consumer.py

``DESTINATION_URI`` is the subscription's ``destination.uri`` (the signed ``@destination``).
JetStream drops a republished delivery (same ``Nats-Msg-Id``) inside the stream's duplicate
window; dedupe by event id beyond it.
"""

from __future__ import annotations

import asyncio
import os

import nats

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
applied: set[str] = set()


async def handle(msg: nats.aio.msg.Msg, keys: JwksKeyResolver, nonces: NonceCache) -> None:
    headers, body = msg.headers or {}, msg.data
    if is_challenge_message(body):
        answer = await answer_broker_challenge(
            headers, body, DESTINATION, keys=keys, nonce_cache=nonces
        )
        if answer.ok:
            await send_challenge_response(ENGINE, answer)
        await msg.ack()
        return
    try:
        delivery = await verify_broker_message(
            headers, body, DESTINATION, keys=keys, nonce_cache=nonces
        )
    except MessageVerificationError as exc:
        print("refused", exc.reason)
        await msg.term()  # never redelivered
        return
    if delivery.event.event_id not in applied:
        print("apply", delivery.event.event_id, delivery.event.type, delivery.event.payload)
        applied.add(delivery.event.event_id)
    await msg.ack()


async def main() -> None:
    keys = JwksKeyResolver(f"{ENGINE}/.well-known/hookproof/jwks.json")
    nonces = NonceCache()
    nc = await nats.connect(os.environ.get("NATS_URL", "nats://127.0.0.1:4222"))
    js = nc.jetstream()
    subject = DESTINATION.rsplit("/", 1)[1]
    sub = await js.pull_subscribe(
        subject, durable="hookproof-consumer", stream=os.environ.get("STREAM")
    )
    while True:
        try:
            batch = await sub.fetch(64, timeout=5)
        except nats.errors.TimeoutError:
            continue
        for msg in batch:
            await handle(msg, keys, nonces)


if __name__ == "__main__":
    asyncio.run(main())
