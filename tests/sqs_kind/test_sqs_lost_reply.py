"""What the ``sqs`` kind concludes when SQS's answer is lost or does not match what was sent:
a reply cut after the request reached moto is UNKNOWN (``sqs_no_answer``), and the retry is
accepted; on a FIFO queue the retry (same delivery id) leaves one message, on a standard
queue both copies carry the delivery id the consumer deduplicates by. An answer whose MD5 is
not ours is ``store_digest_mismatch``, never acceptance."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import asyncpg
import msgspec

from hookproof.config import Settings
from hookproof.engine.destinations.sqs.adapter import AwsCredentials, SqsConfig, SqsDestination
from hookproof.engine.egress.failures import Outcome
from tests.destinations.engine_support import ConfirmCutter, started

from .conftest import REGION
from .test_sqs_kind import Attempt, Static, composed_sqs, new_queue, received, signed, stored


def via(port: int, queue_url: str) -> str:
    """The queue's endpoint through a proxy on *port*."""
    account_and_name = queue_url.split("/", 3)[3]
    return f"sqs+http://127.0.0.1:{port}/{account_and_name}"


async def lost_then_retried(
    pool: asyncpg.Pool, tmp_path: Path, moto_port: int, queue_url: str
) -> tuple[Any, Any]:
    cutter = ConfirmCutter(("127.0.0.1", moto_port), marker=b"dlv_lost")
    proxy = await cutter.start()
    settings = Settings(
        data_dir=tmp_path, egress_allow=(("127.0.0.1", moto_port), ("127.0.0.1", proxy))
    )
    try:
        async with started(pool, settings) as (engine, _api):
            adapter = SqsDestination(composed_sqs(engine.services.destination).connect, Static())
            lost = await adapter.deliver(
                _with_delivery(signed("evt_l", 1)),
                Attempt(endpoint=via(proxy, queue_url), delivery_id="dlv_lost"),
            )
            retry = await adapter.deliver(
                _with_delivery(signed("evt_l", 1)),
                Attempt(endpoint="sqs+" + queue_url, delivery_id="dlv_lost"),
            )
    finally:
        await cutter.close()
    assert cutter.cuts == 1
    return lost, retry


def _with_delivery(message: Any) -> Any:
    headers = dict(message.headers)
    headers["hookproof-delivery-id"] = "dlv_lost"
    return type(message)(message.body, headers)


async def test_fifo_a_lost_reply_then_the_retry_leaves_one_message(
    pool: asyncpg.Pool, tmp_path: Path, moto_port: int, sqs: Any
) -> None:
    queue_url = new_queue(sqs, fifo=True)
    lost, retry = await lost_then_retried(pool, tmp_path, moto_port, queue_url)
    assert lost.outcome is Outcome.UNKNOWN and lost.code == "sqs_no_answer", lost
    assert lost.request_written and not lost.ok
    assert retry.ok, retry
    assert stored(sqs, queue_url) == 1
    assert len(received(sqs, queue_url, 1)) == 1


async def test_standard_a_lost_reply_is_unknown_and_both_copies_carry_the_delivery_id(
    pool: asyncpg.Pool, tmp_path: Path, moto_port: int, sqs: Any
) -> None:
    queue_url = new_queue(sqs)
    lost, retry = await lost_then_retried(pool, tmp_path, moto_port, queue_url)
    assert lost.outcome is Outcome.UNKNOWN and lost.code == "sqs_no_answer", lost
    assert retry.ok, retry
    assert stored(sqs, queue_url) == 2
    copies = received(sqs, queue_url, 2)
    assert len(copies) == 2
    ids = {m["MessageAttributes"]["hookproof-delivery-id"]["StringValue"] for m in copies}
    assert ids == {"dlv_lost"}


async def test_an_answer_with_another_md5_is_a_digest_mismatch(
    pool: asyncpg.Pool, tmp_path: Path
) -> None:
    """A loopback server answering SendMessage with an MD5 of other bytes."""
    answer = json.dumps(
        {"MessageId": "m-1", "MD5OfMessageBody": "0" * 32, "MD5OfMessageAttributes": "0" * 32}
    ).encode()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        await reader.readexactly(length)
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/x-amz-json-1.0\r\n"
            b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(answer), answer)
        )
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    settings = Settings(data_dir=tmp_path, egress_allow=(("127.0.0.1", port),))
    try:
        async with started(pool, settings) as (engine, _api):
            adapter = SqsDestination(composed_sqs(engine.services.destination).connect, Static())
            ev = await adapter.deliver(
                signed("evt_x", 1),
                Attempt(endpoint=f"sqs+http://127.0.0.1:{port}/123456789012/q"),
            )
    finally:
        server.close()
        await server.wait_closed()
    assert ev.outcome is Outcome.RESPONSE and not ev.ok, ev
    assert ev.code == "store_digest_mismatch"
    assert ev.broker is not None and ev.broker["sqs"]["messageId"] == "m-1"


class Keyed:
    """A credential source with the given key."""

    def __init__(self, access_key_id: str, secret: str) -> None:
        self.config = SqsConfig(REGION, AwsCredentials(access_key_id, secret))

    async def sqs_config(self, target: Any) -> SqsConfig | None:
        return self.config


async def test_the_signature_is_checked_by_sqs(
    pool: asyncpg.Pool, tmp_path: Path, moto_auth: tuple[int, str, str]
) -> None:
    """moto with authentication on: our SigV4 signature over our own transport is accepted;
    a wrong secret is ``sqs_access_denied`` and appears nowhere in the evidence."""
    port, access_key_id, secret = moto_auth
    import botocore.session

    sqs = botocore.session.get_session().create_client(
        "sqs",
        region_name=REGION,
        endpoint_url=f"http://127.0.0.1:{port}",
        aws_access_key_id=access_key_id,
        aws_secret_access_key=secret,
    )
    queue_url = new_queue(sqs)
    settings = Settings(data_dir=tmp_path, egress_allow=(("127.0.0.1", port),))
    wrong = "wrong-secret-0123456789abcdef0123456789abcdef"
    async with started(pool, settings) as (engine, _api):
        connect = composed_sqs(engine.services.destination).connect
        good = await SqsDestination(connect, Keyed(access_key_id, secret)).deliver(
            signed("evt_a", 1), Attempt(endpoint="sqs+" + queue_url)
        )
        bad = await SqsDestination(connect, Keyed(access_key_id, wrong)).deliver(
            signed("evt_b", 2), Attempt(endpoint="sqs+" + queue_url)
        )
    assert good.ok, good
    assert bad.outcome is Outcome.RESPONSE and bad.code == "sqs_access_denied", bad
    assert stored(sqs, queue_url) == 1
    for ev in (good, bad):
        text = msgspec.json.encode(ev).decode()
        assert secret not in text and wrong not in text
