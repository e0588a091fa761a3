"""What one SQS attempt sends and how its answer is judged (pure: no socket, no signer).

The request is SQS's JSON protocol ``AmazonSQS.SendMessage``: the canonical body as
``MessageBody``, each signed header as a ``String`` message attribute (the ids, the digest
and the signature, so a consumer verifies as it would an HTTP request), and on a FIFO queue
(``.fifo``) ``MessageGroupId`` = the aggregate (the subscription) and
``MessageDeduplicationId`` = the delivery id, so a retry after a lost reply is dropped by SQS.
The answer is accepted only when ``MD5OfMessageBody`` and ``MD5OfMessageAttributes`` equal our
own MD5s of what we sent (:func:`attributes_md5`, SQS's documented algorithm); a mismatch is
``store_digest_mismatch``, never acceptance."""

from __future__ import annotations

import hashlib
import json
import re
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

__all__ = [
    "ATTRIBUTE_LIMIT",
    "SqsAnswer",
    "SqsQueue",
    "attributes_md5",
    "body_md5",
    "judge",
    "parse_queue",
    "send_message",
]

#: SQS accepts at most ten message attributes
ATTRIBUTE_LIMIT: Final = 10
_NAME_RE: Final = re.compile(r"[A-Za-z0-9_.-]{1,256}")
#: the error code of an XML (query protocol) error answer, which SQS's front end may still send
_XML_CODE_RE: Final = re.compile(rb"<Code>([A-Za-z0-9_.]{1,100})</Code>")
_REGION_RE: Final = re.compile(r"sqs[.-]([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?$")
#: the endpoint prefix that marks an attempt as this kind's (``sqs+https://...``)
PREFIX: Final = "sqs+"


@dataclass(frozen=True, slots=True)
class SqsQueue:
    """A queue as an attempt's endpoint names it: ``sqs+<queueUrl>``."""

    queue_url: str
    host: str
    port: int
    tls: bool
    region_hint: str | None

    @property
    def fifo(self) -> bool:
        return self.queue_url.endswith(".fifo")

    @property
    def name(self) -> str:
        return self.queue_url.rstrip("/").rpartition("/")[2]


def parse_queue(endpoint: str) -> SqsQueue | None:
    """The queue of ``sqs+https://host[:port]/<account>/<name>`` (None: not a queue URL)."""
    if not endpoint.startswith(PREFIX):
        return None
    queue_url = endpoint[len(PREFIX) :]
    try:
        url = urlsplit(queue_url)
        port = url.port
    except ValueError:
        return None
    parts = [p for p in url.path.split("/") if p]
    if url.scheme not in ("https", "http") or not url.hostname or len(parts) != 2:
        return None
    if url.query or url.fragment or url.username or url.password:
        return None
    tls = url.scheme == "https"
    found = _REGION_RE.search(url.hostname)
    return SqsQueue(
        queue_url=queue_url,
        host=url.hostname,
        port=port or (443 if tls else 80),
        tls=tls,
        region_hint=found.group(1) if found else None,
    )


def attributes_md5(attributes: Mapping[str, str]) -> str:
    """SQS's MD5 of ``String`` message attributes: for each name in order, the name, the
    data type and the value, each as a 4-byte big-endian length and its UTF-8 bytes, the
    value preceded by the transport byte 1."""
    digest = hashlib.md5(usedforsecurity=False)
    for name in sorted(attributes):
        for part in (name.encode(), b"String"):
            digest.update(struct.pack(">I", len(part)) + part)
        value = attributes[name].encode()
        digest.update(b"\x01" + struct.pack(">I", len(value)) + value)
    return digest.hexdigest()


def body_md5(body: str) -> str:
    return hashlib.md5(body.encode(), usedforsecurity=False).hexdigest()


def send_message(
    queue: SqsQueue,
    body: bytes,
    headers: Mapping[str, str],
    *,
    group_id: str,
    delivery_id: str,
) -> tuple[bytes, dict[str, str], str] | str:
    """(request body, attributes, message body) for SendMessage, or a failure code when the
    message cannot be an SQS message (``sqs_body_not_text``, ``sqs_too_many_attributes``)."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return "sqs_body_not_text"
    attributes = {name.lower(): value for name, value in headers.items()}
    if len(attributes) > ATTRIBUTE_LIMIT or not all(map(_NAME_RE.fullmatch, attributes)):
        return "sqs_too_many_attributes"
    request: dict[str, Any] = {
        "QueueUrl": queue.queue_url,
        "MessageBody": text,
        "MessageAttributes": {
            name: {"DataType": "String", "StringValue": value}
            for name, value in sorted(attributes.items())
        },
    }
    if queue.fifo:
        request["MessageGroupId"] = group_id
        request["MessageDeduplicationId"] = delivery_id
    return json.dumps(request, separators=(",", ":")).encode(), attributes, text


@dataclass(frozen=True, slots=True)
class SqsAnswer:
    """The judged answer: ``code`` None only for acceptance; ``evidence`` what is recorded."""

    code: str | None
    evidence: dict[str, Any]


#: SQS error types (``__type``'s last part or the query error code) -> our reason codes
_ERRORS: Final = {
    "QueueDoesNotExist": "sqs_queue_missing",
    "AWS.SimpleQueueService.NonExistentQueue": "sqs_queue_missing",
    "AccessDenied": "sqs_access_denied",
    "AccessDeniedException": "sqs_access_denied",
    "InvalidClientTokenId": "sqs_access_denied",
    "SignatureDoesNotMatch": "sqs_access_denied",
    "UnrecognizedClientException": "sqs_access_denied",
    "ThrottlingException": "sqs_throttled",
    "RequestThrottled": "sqs_throttled",
}


def judge(
    status: int,
    payload: bytes,
    *,
    queue: SqsQueue,
    message_body: str,
    attributes: Mapping[str, str],
) -> SqsAnswer:
    """The answer of SendMessage, checked against what was sent."""
    base: dict[str, Any] = {"queue": queue.name, "status": status}
    try:
        doc = json.loads(payload) if payload else {}
    except ValueError:
        doc = None
    if not isinstance(doc, dict) and status != 200:
        found = _XML_CODE_RE.search(payload)
        doc = {"__type": found.group(1).decode()} if found else {}
    if not isinstance(doc, dict):
        return SqsAnswer("sqs_bad_answer", base)
    if status != 200:
        kind = str(doc.get("__type", "")).rpartition("#")[2]
        fallback = "sqs_access_denied" if status == 403 else "sqs_refused"
        code = _ERRORS.get(kind, "sqs_server_error" if status >= 500 else fallback)
        return SqsAnswer(code, {**base, "error": kind[:100]})
    message_id = doc.get("MessageId")
    if not isinstance(message_id, str):
        return SqsAnswer("sqs_bad_answer", base)
    evidence = {
        **base,
        "messageId": message_id,
        "md5OfMessageBody": doc.get("MD5OfMessageBody"),
        "md5OfMessageAttributes": doc.get("MD5OfMessageAttributes"),
    }
    if isinstance(doc.get("SequenceNumber"), str):
        evidence["sequenceNumber"] = doc["SequenceNumber"]
    expected_attrs = attributes_md5(attributes) if attributes else None
    if doc.get("MD5OfMessageBody") != body_md5(message_body) or (
        expected_attrs is not None and doc.get("MD5OfMessageAttributes") != expected_attrs
    ):
        return SqsAnswer("store_digest_mismatch", evidence)
    return SqsAnswer(None, evidence)
