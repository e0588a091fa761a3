"""The ``sqs`` kind's pure part: which endpoints name a queue, what SendMessage carries (FIFO
ids, attributes, limits) and how an answer is judged against what was sent."""

from __future__ import annotations

import json

import pytest

from hookproof.engine.destinations.sqs.message import (
    ATTRIBUTE_LIMIT,
    attributes_md5,
    body_md5,
    judge,
    parse_queue,
    send_message,
)

AWS = "sqs+https://sqs.eu-west-1.amazonaws.com/123456789012/orders"


def test_a_queue_url_is_parsed_with_its_region() -> None:
    queue = parse_queue(AWS)
    assert queue is not None
    assert (queue.host, queue.port, queue.tls, queue.region_hint) == (
        "sqs.eu-west-1.amazonaws.com",
        443,
        True,
        "eu-west-1",
    )
    assert queue.name == "orders" and not queue.fifo
    local = parse_queue("sqs+http://127.0.0.1:4566/1/q.fifo")
    assert local is not None and local.fifo and not local.tls and local.port == 4566


@pytest.mark.parametrize(
    "endpoint",
    [
        "https://sqs.eu-west-1.amazonaws.com/1/q",
        "sqs+ftp://host/1/q",
        "sqs+https://host/q",
        "sqs+https://host/1/q/extra",
        "sqs+https://user:pw@host/1/q",
        "sqs+https://host/1/q?x=1",
        "sqs+https://host:99999/1/q",
    ],
)
def test_other_endpoints_are_no_queue(endpoint: str) -> None:
    assert parse_queue(endpoint) is None


def test_fifo_carries_the_aggregate_and_the_delivery_id() -> None:
    queue = parse_queue("sqs+http://127.0.0.1:1/1/q.fifo")
    assert queue is not None
    built = send_message(queue, b"{}", {"Webhook-Id": "e"}, group_id="sub_1", delivery_id="d_1")
    assert not isinstance(built, str)
    doc = json.loads(built[0])
    assert doc["MessageGroupId"] == "sub_1" and doc["MessageDeduplicationId"] == "d_1"
    assert doc["MessageAttributes"] == {"webhook-id": {"DataType": "String", "StringValue": "e"}}
    standard = parse_queue(AWS)
    assert standard is not None
    plain = send_message(standard, b"{}", {}, group_id="s", delivery_id="d")
    assert not isinstance(plain, str) and "MessageGroupId" not in json.loads(plain[0])


def test_what_cannot_be_an_sqs_message_is_not_sent() -> None:
    queue = parse_queue(AWS)
    assert queue is not None
    many = {f"h-{i}": "v" for i in range(ATTRIBUTE_LIMIT + 1)}
    assert send_message(queue, b"{}", many, group_id="s", delivery_id="d") == (
        "sqs_too_many_attributes"
    )
    assert send_message(queue, b"\xff", {}, group_id="s", delivery_id="d") == "sqs_body_not_text"


def test_the_answer_is_judged_against_what_was_sent() -> None:
    queue = parse_queue(AWS)
    assert queue is not None
    attrs = {"webhook-id": "e"}
    answer = {
        "MessageId": "m",
        "MD5OfMessageBody": body_md5("{}"),
        "MD5OfMessageAttributes": attributes_md5(attrs),
    }
    ok = judge(200, json.dumps(answer).encode(), queue=queue, message_body="{}", attributes=attrs)
    assert ok.code is None and ok.evidence["messageId"] == "m"
    other = judge(
        200, json.dumps(answer).encode(), queue=queue, message_body="{ }", attributes=attrs
    )
    assert other.code == "store_digest_mismatch"
    missing = b'{"__type":"com.amazonaws.sqs#QueueDoesNotExist","message":"x"}'
    assert judge(400, missing, queue=queue, message_body="", attributes={}).code == (
        "sqs_queue_missing"
    )
    xml = b"<ErrorResponse><Error><Code>SignatureDoesNotMatch</Code></Error></ErrorResponse>"
    assert judge(403, xml, queue=queue, message_body="", attributes={}).code == (
        "sqs_access_denied"
    )
    assert judge(503, b"", queue=queue, message_body="", attributes={}).code == ("sqs_server_error")
    assert judge(200, b"<html>", queue=queue, message_body="", attributes={}).code == (
        "sqs_bad_answer"
    )
