"""``POST /v1/events/batch``: decode each event on its own, answer each in order.

The request as a whole is refused only when it is not a batch at all (not JSON, no
``events`` list, more than 1,000 events, too large); otherwise every event gets its own entry:
the single-event 202 body plus ``"status": 202``, or ``{"eventId", "status": 409|400,
"problem"}``. One bad event never blocks the others.
"""

from __future__ import annotations

from typing import Any

import asyncpg
import msgspec

from hookproof.errors import HookproofError, ValidationError
from hookproof.schemas.api import MAX_BATCH_EVENTS, EventBatchIn, EventIn

from ..common.jsonscan import JsonScan, TooManyEntries
from ..ingest.ingest import IngestResult
from .problems import MAX_BODY, MAX_DEPTH, decode_code, read_body

__all__ = ["MAX_BATCH_BODY", "decode_batch", "result_entry"]

#: a whole batch body (each event inside it is still held to the single-event limit)
MAX_BATCH_BODY = 16 * 1024 * 1024


async def decode_batch(request: Any) -> list[EventIn | HookproofError]:
    """The batch's events, each decoded on its own (a bad one becomes its own error)."""
    too_many = TooManyEntries(
        f"a batch holds at most {MAX_BATCH_EVENTS} events", field="events", code="batch_too_large"
    )
    # depth and entries are counted as the body arrives: an oversize batch is refused at its
    # 1,001st entry, before the rest is read (or decompressed) and before anything is decoded
    scan = JsonScan(MAX_DEPTH + 2, count_depth=2, max_entries=MAX_BATCH_EVENTS, too_many=too_many)
    body = await read_body(request, MAX_BATCH_BODY, scan)
    if not body:
        raise ValidationError("empty body: a JSON object is required", code="invalid_json")
    try:
        raw = msgspec.json.decode(body, type=EventBatchIn)
    except msgspec.ValidationError as exc:
        raise ValidationError(f'a batch is {{"events": [...]}}: {exc}', field="events") from exc
    except msgspec.DecodeError as exc:
        raise ValidationError(f"malformed JSON: {exc}", code="invalid_json") from exc
    if not raw.events:
        raise ValidationError("a batch holds at least one event", field="events")
    if len(raw.events) > MAX_BATCH_EVENTS:
        raise ValidationError(
            f"a batch holds at most {MAX_BATCH_EVENTS} events",
            field="events",
            code="batch_too_large",
        )
    return [_decode_one(r, i) for i, r in enumerate(raw.events)]


def _decode_one(raw: msgspec.Raw, index: int) -> EventIn | HookproofError:
    if len(raw) > MAX_BODY:
        return _Refused(
            f"an event is at most {MAX_BODY} bytes",
            field=f"events[{index}]",
            code="body_too_large",
            event_id=_event_id_of(raw),
        )
    try:
        return msgspec.json.decode(raw, type=EventIn)
    except msgspec.ValidationError as exc:
        message = str(exc)
        field = message.rsplit("at `$.", 1)[1].rstrip("`") if "at `$." in message else None
        return _Refused(message, field=field, code=decode_code(message), event_id=_event_id_of(raw))


def _event_id_of(raw: msgspec.Raw) -> str | None:
    try:
        doc = msgspec.json.decode(raw)
    except msgspec.DecodeError:
        return None
    value = doc.get("eventId") if isinstance(doc, dict) else None
    return value if isinstance(value, str) and len(value) <= 200 else None


class _Refused(ValidationError):
    """An event of the batch that could not be decoded; remembers the eventId it named."""

    def __init__(self, detail: str, *, event_id: str | None, **kw: Any) -> None:
        super().__init__(detail, **kw)
        self.event_id = event_id


def result_entry(event: EventIn | HookproofError, answer: Any) -> dict[str, Any]:
    """One result of the batch: the 202 body with ``status``, or a 409/400 with its problem."""
    if isinstance(answer, IngestResult):
        return {
            "eventId": answer.event_id,
            "payloadDigest": answer.payload_digest,
            "deliveries": answer.deliveries,
            "created": answer.created,
            "status": 202,
        }
    # refused as stored, or a value that cannot be used: the input's fault
    if isinstance(answer, asyncpg.DataError | UnicodeError | OverflowError):
        answer = ValidationError("a value cannot be stored as given", code="invalid_data")
    if not isinstance(answer, HookproofError) or answer.status >= 500:
        raise answer  # not the input's fault (e.g. the database is down): the request fails
    status = 409 if answer.status == 409 else 400
    problem = answer.to_problem()
    problem["status"] = status
    if isinstance(event, EventIn):
        event_id: str | None = event.event_id
    else:
        event_id = getattr(event, "event_id", None)
    return {"eventId": event_id, "status": status, "problem": problem}
