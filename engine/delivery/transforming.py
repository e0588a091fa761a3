"""A subscription's transformation applied to one attempt (DESIGN.md section 17).

Before the attempt is signed, the subscription's ``handler(webhook)`` runs in the sandbox on
the event's canonical body (``webhook.payload``), its type, the endpoint's path and ``POST``,
with a fixed clock (the event's ``occurredAt``) and a seed of the event, subscription and
generation, so the same delivery always yields the same bytes. The output payload (canonical
JSON) becomes the attempt's body: those bytes are signed and sent. A failure is the
attempt's evidence, ``transformation_failed`` (nothing sent, dead-lettered without retries);
``cancel`` is ``transformation_cancelled``. The code's, input's and output's digests are
recorded with the attempt (``AttemptRequest.transformation``). Changing ``webhook.method`` or
``webhook.url`` is not delivered yet: it fails as ``invalid_output``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

import msgspec
import structlog

from hookproof.events.canonical import decode_json
from hookproof.events.delivery_events import AttemptRequest

from ..destinations.port import Completed, Destination, Evidence, PendingAttempt, SignedMessage
from ..egress import Outcome
from ..transform.model import Failure, FailureKind, Output, TransformInput
from ..transform.sandbox import Sandbox
from ..transform.shared import shared_sandbox
from .bounded import send_bounded
from .job import Job
from .request_view import sent_request

__all__ = ["Shaped", "send_shaped", "shaped_request", "transform", "transform_input"]

log = structlog.get_logger("hookproof.delivery")
CANCELLED = "transformation_cancelled"
FAILED = "transformation_failed"


@dataclass(frozen=True, slots=True)
class Shaped:
    """One attempt's transformation: the verdict's evidence when nothing may be sent (None:
    ``job.body`` is now the output), and what the attempt records of it."""

    evidence: Evidence | None
    record: dict[str, str | int]


def _path(endpoint: str) -> str:
    parts = urlsplit(endpoint)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def _now_ms(occurred_at: Any) -> int:
    try:
        return int(datetime.fromisoformat(str(occurred_at)).timestamp() * 1000)
    except (TypeError, ValueError, OverflowError):
        return 0


def transform_input(job: Job) -> TransformInput:
    """What ``handler`` receives for ``job``: the same for every attempt and replay of it."""
    r = job.row
    body = decode_json(job.body)
    event = body if isinstance(body, dict) else {}
    seed = hashlib.sha256(f"{r.event_id}\n{r.subscription_id}\n{r.generation}".encode()).digest()
    return TransformInput(
        payload=body,
        event_type=str(event.get("type", "")),
        url=_path(r.endpoint),
        now_ms=_now_ms(event.get("occurredAt")),
        seed=seed[:16],
    )


async def transform(job: Job, sandbox: Sandbox | None = None) -> Shaped | None:
    """Run ``job``'s transformation (None: it has none); an output becomes ``job.body``."""
    spec = job.row.transformation
    if spec is None:
        return None
    inp = transform_input(job)
    result = await (sandbox or shared_sandbox()).run(spec.code, inp)
    if isinstance(result, Output) and not result.cancelled:
        if result.method != inp.method or result.url != inp.url:
            message = "changing webhook.method or webhook.url is not supported"
            result = Failure(FailureKind.INVALID_OUTPUT, message, None, result.digests, 0)
    record: dict[str, str | int] = {"code": spec.digest, "input": result.digests.input}
    if isinstance(result, Failure):
        record.update(kind=result.kind.value, message=result.message)
        if result.line is not None:
            record["line"] = result.line
        log.info(
            "delivery_transformation_failed",
            delivery_id=job.row.delivery_id,
            subscription_id=job.row.subscription_id,
            kind=result.kind.value,
        )
        return Shaped(Evidence(outcome=Outcome.NOT_SENT, code=FAILED), record)
    assert result.digests.output is not None
    record["output"] = result.digests.output
    if result.cancelled:
        return Shaped(Evidence(outcome=Outcome.NOT_SENT, code=CANCELLED), record)
    job.body = result.payload
    return Shaped(None, record)


async def send_shaped(
    shaped: Shaped | None, destination: Destination, pending: PendingAttempt, deadline_s: float
) -> Completed:
    """The attempt sent, or the transformation's verdict when nothing may be sent."""
    if shaped is not None and shaped.evidence is not None:
        return pending.sent().completed(shaped.evidence, pending.started)
    return await send_bounded(destination, pending, deadline_s)


def shaped_request(
    shaped: Shaped | None, message: SignedMessage, evidence: Evidence
) -> AttemptRequest:
    """What the attempt records of its request, with the transformation's digests."""
    request = sent_request(message, evidence)
    if shaped is None:
        return request
    return msgspec.structs.replace(request, transformation=shaped.record)
