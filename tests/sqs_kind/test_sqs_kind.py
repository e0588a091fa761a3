"""The ``sqs`` kind against a real SQS API (moto in server mode on loopback): deliveries
arrive with their signed headers as message attributes and verify with the subscriber SDK;
the evidence is the queue's MessageId and its MD5s of what it stored, checked against ours;
a FIFO retry with the same delivery id leaves one message; a missing queue has its code; the
credentials are in no evidence or log line.

The subscription API does not yet accept a kind installed through the registry (issue 47's
remaining part), so the composed destination is driven directly (as ``tests/plugin_kind``),
and the credentials reach the adapter as the ``"sqs_credentials"`` part would give them."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
import msgspec
import pytest

from hookproof.config import Settings
from hookproof.engine.destinations.port import Destination, SignedMessage
from hookproof.engine.destinations.registry import DestinationsByKind, installed
from hookproof.engine.destinations.sqs.adapter import (
    AwsCredentials,
    SqsConfig,
    SqsDestination,
)
from hookproof.engine.destinations.sqs.message import attributes_md5
from hookproof.engine.egress.failures import Outcome
from hookproof_subscriber.digest import content_digest, verify_content_digest
from hookproof_subscriber.keys import HMAC_SHA256, SigningKey, VerificationKey
from hookproof_subscriber.stdwebhooks import sign_standard, verify_standard
from tests.destinations.engine_support import started

from .conftest import ACCESS_KEY, REGION, SECRET_KEY

CONFIG = SqsConfig(REGION, AwsCredentials(ACCESS_KEY, SECRET_KEY, "session-token-xyz"))
SECRET = secrets.token_bytes(32)


@dataclass(frozen=True)
class Attempt:
    """The attempt as a destination reads it (``destinations.context.Target``)."""

    endpoint: str
    delivery_id: str = "dlv_1"
    event_id: str = "evt_1"
    tenant_id: str = "ten_1"
    subscription_id: str = "sub_1"
    generation: int = 1
    attempt: int = 0
    sub_generation: int = 1
    sub_version: int = 1
    endpoint_digest: str = "d"


class Static:
    """The subscription's opened ``sqs`` destination, as the engine part would hand it."""

    async def sqs_config(self, target: Any) -> SqsConfig | None:
        return CONFIG


def signed(event_id: str, n: int) -> SignedMessage:
    body = b'{"type":"order.created","data":{"n":%d}}' % n
    headers = sign_standard(event_id, body, SigningKey("k1", HMAC_SHA256, secret=SECRET))
    headers["content-digest"] = content_digest(body)
    headers["hookproof-delivery-id"] = f"dlv_{n}"
    return SignedMessage(body, headers)


def composed_sqs(destination: Destination) -> SqsDestination:
    """The engine's ``sqs`` adapter inside the composed (traced) destination."""
    inner: Any = destination
    while not isinstance(inner, DestinationsByKind):
        inner = inner.inner
    adapter = inner.adapter("sqs")
    assert isinstance(adapter, SqsDestination)
    return adapter


def new_queue(sqs: Any, *, fifo: bool = False) -> str:
    name = f"hookproof-{secrets.token_hex(4)}" + (".fifo" if fifo else "")
    attrs = {"FifoQueue": "true"} if fifo else {}
    return str(sqs.create_queue(QueueName=name, Attributes=attrs)["QueueUrl"])


def stored(sqs: Any, queue_url: str) -> int:
    """How many messages the queue holds (a FIFO group hides the rest while one is out)."""
    attrs = sqs.get_queue_attributes(
        QueueUrl=queue_url,
        AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    )["Attributes"]
    return int(attrs["ApproximateNumberOfMessages"]) + int(
        attrs["ApproximateNumberOfMessagesNotVisible"]
    )


def received(sqs: Any, queue_url: str, n: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for _ in range(20):
        got = sqs.receive_message(
            QueueUrl=queue_url, MaxNumberOfMessages=10, MessageAttributeNames=["All"]
        ).get("Messages", [])
        out.extend(got)
        if len(out) >= n and not got:
            break
    return out


def test_the_kind_registers() -> None:
    kind = installed().get("sqs")
    assert kind is not None and kind.secrets == ("credentials",)
    assert [f.name for f in kind.fields] == ["queueUrl", "region", "credentials"]
    assert installed().kind_of("sqs+https://sqs.eu-west-1.amazonaws.com/1/q") is kind
    assert installed().kind_of("https://sqs.eu-west-1.amazonaws.com/1/q") is not kind


async def test_deliveries_arrive_verify_and_record_the_stores_digests(
    pool: asyncpg.Pool,
    tmp_path: Path,
    moto_port: int,
    sqs: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    queue_url = new_queue(sqs)
    settings = Settings(data_dir=tmp_path, egress_allow=(("127.0.0.1", moto_port),))
    evidence = []
    async with started(pool, settings) as (engine, _api):
        adapter = SqsDestination(composed_sqs(engine.services.destination).connect, Static())
        for n in range(5):
            message = signed(f"evt_{n}", n)
            evidence.append(
                await adapter.deliver(
                    message, Attempt(endpoint="sqs+" + queue_url, delivery_id=f"dlv_{n}")
                )
            )
    for ev in evidence:
        assert ev.ok and ev.outcome is Outcome.RESPONSE, ev
        assert ev.peer_address == f"127.0.0.1:{moto_port}" and ev.request_written
    messages = received(sqs, queue_url, 5)
    assert len(messages) == 5
    assert {m["MessageId"] for m in messages} == {
        ev.broker["sqs"]["messageId"] for ev in evidence if ev.broker
    }
    key = VerificationKey("k1", HMAC_SHA256, secret=SECRET)
    for m in messages:
        headers = {k: v["StringValue"] for k, v in m["MessageAttributes"].items()}
        body = m["Body"].encode()
        assert verify_standard(headers, body, keys=[key]).ok
        assert verify_content_digest(headers["content-digest"], body)
        assert m["MD5OfMessageAttributes"] == attributes_md5(headers)
        ours = next(
            ev for ev in evidence if ev.broker and ev.broker["sqs"]["messageId"] == m["MessageId"]
        )
        assert ours.broker is not None
        assert ours.broker["sqs"]["md5OfMessageBody"] == m["MD5OfBody"]
    # the credentials are in no evidence and no log line
    recorded = msgspec.json.encode(evidence).decode()
    logged = capsys.readouterr()
    for secret in (SECRET_KEY, "session-token-xyz"):
        assert secret not in recorded and secret not in logged.out + logged.err
        assert secret not in repr(CONFIG)


async def test_fifo_groups_by_aggregate_and_a_retry_leaves_one_message(
    pool: asyncpg.Pool, tmp_path: Path, moto_port: int, sqs: Any
) -> None:
    queue_url = new_queue(sqs, fifo=True)
    settings = Settings(data_dir=tmp_path, egress_allow=(("127.0.0.1", moto_port),))
    async with started(pool, settings) as (engine, _api):
        adapter = SqsDestination(composed_sqs(engine.services.destination).connect, Static())
        attempt = Attempt(endpoint="sqs+" + queue_url, delivery_id="dlv_retry")
        first = await adapter.deliver(signed("evt_f", 1), attempt)
        again = await adapter.deliver(signed("evt_f", 1), attempt)
    assert first.ok and again.ok, (first, again)
    assert first.broker is not None and first.broker["sqs"]["sequenceNumber"]
    assert stored(sqs, queue_url) == 1
    messages = sqs.receive_message(
        QueueUrl=queue_url, MaxNumberOfMessages=10, AttributeNames=["All"]
    ).get("Messages", [])
    assert len(messages) == 1
    assert messages[0]["Attributes"]["MessageGroupId"] == "sub_1"
    assert messages[0]["Attributes"]["MessageDeduplicationId"] == "dlv_retry"


async def test_a_missing_queue_has_its_code(
    pool: asyncpg.Pool, tmp_path: Path, moto_port: int
) -> None:
    settings = Settings(data_dir=tmp_path, egress_allow=(("127.0.0.1", moto_port),))
    missing = f"http://127.0.0.1:{moto_port}/123456789012/hookproof-none-{secrets.token_hex(3)}"
    async with started(pool, settings) as (engine, _api):
        adapter = SqsDestination(composed_sqs(engine.services.destination).connect, Static())
        ev = await adapter.deliver(signed("evt_m", 1), Attempt(endpoint="sqs+" + missing))
    assert not ev.ok and ev.outcome is Outcome.RESPONSE and ev.code == "sqs_queue_missing", ev
    assert SECRET_KEY not in msgspec.json.encode(ev).decode()


async def test_without_credentials_or_an_allowance_nothing_is_sent(
    pool: asyncpg.Pool, tmp_path: Path, moto_port: int, sqs: Any
) -> None:
    queue_url = new_queue(sqs)
    async with started(pool, Settings(data_dir=tmp_path)) as (engine, _api):
        # the composed destination: the engine has no credential part yet
        ev = await engine.services.destination.deliver(
            signed("evt_c", 1), Attempt(endpoint="sqs+" + queue_url)
        )
        assert ev.outcome is Outcome.REFUSED and ev.code == "sqs_credentials_missing", ev
        # loopback without an exact allowance: refused before any socket
        adapter = SqsDestination(composed_sqs(engine.services.destination).connect, Static())
        ev = await adapter.deliver(signed("evt_c", 1), Attempt(endpoint="sqs+" + queue_url))
    assert ev.outcome is Outcome.REFUSED and not ev.request_written and ev.code, ev
    assert received(sqs, queue_url, 0) == []
