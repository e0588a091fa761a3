"""The ``sqs`` kind's port: one SendMessage per attempt, signed with botocore's SigV4 signer
(its public ``SigV4Auth``/``AWSRequest``) and written over the engine's vetted connection
(``KindContext.connect``: the egress address rules, verified TLS, a byte budget; plain HTTP
only to an exact ``HOOKPROOF_EGRESS_ALLOW`` pair, which is how a test's or an AWS-compatible
service's endpoint is reached). The answer is parsed by llhttp (``httptools``) and judged by
:func:`.message.judge`. Credentials come from a :class:`SqsCredentialSource`; they are used
for the signature only and never reach evidence, logs or errors."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Final, Protocol

import httptools
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from ...egress.failures import Outcome
from ..brokers.bounds import PeerLimit
from ..connect import ConnectRefused, VettedConnector
from ..context import Target
from ..port import Evidence, SignedMessage
from .message import SqsQueue, judge, parse_queue, send_message

__all__ = ["AwsCredentials", "SqsConfig", "SqsCredentialSource", "SqsDestination"]

#: an SQS answer is small; more than this is no SendMessage answer
MAX_ANSWER: Final = 64 * 1024
TIMEOUT_S: Final = 10.0


@dataclass(frozen=True, slots=True)
class AwsCredentials:
    """An access key (write-only: its repr shows the key id only)."""

    access_key_id: str
    secret_access_key: str = field(repr=False)
    session_token: str | None = field(default=None, repr=False)


@dataclass(frozen=True, slots=True)
class SqsConfig:
    """What a subscription's ``sqs`` destination holds besides the queue URL."""

    region: str
    credentials: AwsCredentials


class SqsCredentialSource(Protocol):
    """The opened destination of an attempt's subscription (None: none stored)."""

    async def sqs_config(self, target: Target) -> SqsConfig | None: ...


class _TooLong(Exception):
    """The answer exceeded :data:`MAX_ANSWER`."""


class _Answer:
    """httptools callbacks: the status and the body, nothing else kept."""

    def __init__(self) -> None:
        self.body = bytearray()
        self.done = False

    def on_body(self, data: bytes) -> None:
        if len(self.body) + len(data) > MAX_ANSWER:
            raise _TooLong
        self.body += data

    def on_message_complete(self) -> None:
        self.done = True


def signed_request(queue: SqsQueue, config: SqsConfig, payload: bytes) -> dict[str, str]:
    """The SendMessage request's headers, SigV4-signed for ``sqs`` in the config's region."""
    scheme = "https" if queue.tls else "http"
    default = 443 if queue.tls else 80
    netloc = queue.host if queue.port == default else f"{queue.host}:{queue.port}"
    request = AWSRequest(
        method="POST",
        url=f"{scheme}://{netloc}/",
        data=payload,
        headers={
            "Content-Type": "application/x-amz-json-1.0",
            "X-Amz-Target": "AmazonSQS.SendMessage",
        },
    )
    creds = config.credentials
    credentials = Credentials(creds.access_key_id, creds.secret_access_key, creds.session_token)
    SigV4Auth(credentials, "sqs", config.region).add_auth(request)
    headers = {k: str(v) for k, v in request.headers.items()}
    headers["Host"] = netloc
    return headers


class SqsDestination:
    """The port for ``sqs``: SendMessage to the attempt's queue, the answer as evidence."""

    def __init__(self, connect: VettedConnector, source: SqsCredentialSource | None) -> None:
        self.connect = connect
        self.source = source

    async def deliver(self, message: SignedMessage, target: Target) -> Evidence:
        queue = parse_queue(target.endpoint)
        if queue is None:
            return Evidence(outcome=Outcome.REFUSED, code="sqs_endpoint_invalid")
        config = None if self.source is None else await self.source.sqs_config(target)
        if config is None:
            return Evidence(outcome=Outcome.REFUSED, code="sqs_credentials_missing")
        built = send_message(
            queue,
            message.body,
            message.headers,
            group_id=target.subscription_id,
            delivery_id=target.delivery_id,
        )
        if isinstance(built, str):
            return Evidence(outcome=Outcome.NOT_SENT, code=built)
        payload, attributes, text = built
        headers = signed_request(queue, config, payload)
        head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        request = (
            f"POST / HTTP/1.1\r\n{head}Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n"
        ).encode() + payload
        try:
            opened = await self.connect.open(
                queue.host, queue.port, tls=queue.tls, max_bytes=MAX_ANSWER + 16384
            )
        except ConnectRefused as exc:
            return Evidence(outcome=exc.outcome, code=exc.code)
        answer = _Answer()
        parser = httptools.HttpResponseParser(answer)
        written = False
        try:
            async with asyncio.timeout(TIMEOUT_S):
                opened.writer.write(request)
                await opened.writer.drain()
                written = True
                while not answer.done:
                    data = await opened.reader.read(16384)
                    if not data:
                        break
                    parser.feed_data(data)
        except (OSError, TimeoutError, PeerLimit, _TooLong, httptools.HttpParserError) as exc:
            return self._unknown(opened.peer_address, opened.spki_sha256, queue, exc, written)
        finally:
            opened.writer.close()
        if not answer.done:
            return self._unknown(opened.peer_address, opened.spki_sha256, queue, None, True)
        status = parser.get_status_code()
        judged = judge(
            status, bytes(answer.body), queue=queue, message_body=text, attributes=attributes
        )
        return Evidence(
            outcome=Outcome.RESPONSE,
            code=judged.code,
            request_written=True,
            peer_address=opened.peer_address,
            spki_sha256=opened.spki_sha256,
            broker={"sqs": judged.evidence},
        )

    @staticmethod
    def _unknown(
        peer: str, spki: str | None, queue: SqsQueue, exc: BaseException | None, written: bool
    ) -> Evidence:
        """No complete answer: UNKNOWN once the request went out (SQS may hold it)."""
        error = "incomplete" if exc is None else type(exc).__name__
        return Evidence(
            outcome=Outcome.UNKNOWN if written else Outcome.NOT_SENT,
            code="sqs_no_answer",
            request_written=written,
            peer_address=peer,
            spki_sha256=spki,
            broker={"sqs": {"queue": queue.name, "error": error}},
        )
