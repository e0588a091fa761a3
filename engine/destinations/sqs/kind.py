"""The ``sqs`` kind's registration (entry point ``hookproof.destinations: sqs``).

An attempt's endpoint is ``sqs+<queueUrl>``; the subscription's ``region`` and write-only
``credentials`` reach the adapter through the engine part ``"sqs_credentials"`` (an
:class:`~.adapter.SqsCredentialSource`); without it every attempt is refused with
``sqs_credentials_missing``, never sent unsigned."""

from __future__ import annotations

from ..context import KindContext
from ..kind import FieldSpec, KindSpec
from .adapter import SqsCredentialSource, SqsDestination
from .message import PREFIX

__all__ = ["KIND"]


def build(context: KindContext) -> SqsDestination:
    source: SqsCredentialSource | None = context.parts.get("sqs_credentials")
    return SqsDestination(context.connect, source)


def recognise(endpoint: str) -> bool:
    return endpoint.startswith((PREFIX + "https://", PREFIX + "http://"))


KIND = KindSpec(
    name="sqs",
    summary="Amazon SQS (standard and FIFO): SendMessage, the MessageId and the queue's MD5s "
    "of what it stored as evidence",
    build=build,
    fields=(
        FieldSpec("queueUrl", description="the queue's URL (a .fifo queue keeps order)"),
        FieldSpec("region", description="the queue's AWS region (SigV4 scope)"),
        FieldSpec(
            "credentials",
            type="object",
            secret=True,
            description="{accessKeyId, secretAccessKey, sessionToken?}: write-only, sealed",
        ),
    ),
    evidence=("sqs_message_id",),
    signs_own_form=False,
    schemes=frozenset({"sqs+https", "sqs+http"}),
    recognise=recognise,
)
