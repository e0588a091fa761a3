"""``POST /v1/events`` in the CloudEvents HTTP binding (DESIGN.md section 16): structured mode
(``application/cloudevents+json``), batch mode (``application/cloudevents-batch+json``, a JSON
array) and binary mode (``ce-*`` headers, the data as the body). Each CloudEvent is mapped to
the ingest input here, at the edge (``ingest/cloudevents.py``); everything after that is the
same path as a plain event."""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import unquote

import msgspec
from aiohttp import web

from hookproof.errors import HookproofError, ValidationError
from hookproof.schemas.api import MAX_BATCH_EVENTS, EventIn

from ..common.jsonscan import JsonScan, TooManyEntries
from ..ingest.cloudevents import (
    CloudEventInvalid,
    CloudEventUnsupported,
    from_attributes,
    is_json_media,
)
from .batch import MAX_BATCH_BODY
from .problems import MAX_BODY, MAX_DEPTH, read_body

__all__ = [
    "BATCH",
    "STRUCTURED",
    "Mode",
    "mode_of",
    "read_batch",
    "read_binary",
    "read_structured",
]

STRUCTURED = "application/cloudevents+json"
BATCH = "application/cloudevents-batch+json"
Mode = Literal["hookproof", "structured", "batch", "binary"]
_CE = "ce-"


class UnsupportedFormat(HookproofError):
    code = "unsupported_media_type"
    status = 415
    title = "Unsupported media type"


def mode_of(request: web.Request) -> Mode:
    """By the media type, else by the presence of a ``ce-`` header (the binding's rule)."""
    media = request.content_type.lower()
    if media == STRUCTURED:
        return "structured"
    if media == BATCH:
        return "batch"
    if media.startswith("application/cloudevents"):
        raise UnsupportedFormat(
            f"CloudEvents are taken in the JSON event format only ({STRUCTURED} or {BATCH})"
        )
    if any(name.lower().startswith(_CE) for name in request.headers):
        return "binary"
    return "hookproof"


def _decode(body: bytes, what: str) -> Any:
    try:
        return msgspec.json.decode(body)
    except msgspec.DecodeError as exc:
        raise ValidationError(f"{what} is not valid JSON: {exc}", code="invalid_json") from exc


def _from_document(doc: Any) -> EventIn:
    """One CloudEvent in the JSON event format."""
    if not isinstance(doc, dict):
        raise CloudEventInvalid("a CloudEvent in JSON is an object", attribute=None)
    if doc.get("data_base64") is not None:
        if doc.get("data") is not None:
            raise CloudEventInvalid(
                "data and data_base64 are mutually exclusive", attribute="data_base64"
            )
        raise CloudEventUnsupported(
            "hookproof events carry JSON data, not data_base64", attribute="data_base64"
        )
    attributes = {k: v for k, v in doc.items() if k not in ("data", "data_base64")}
    return from_attributes(attributes, doc.get("data"), typed=True)


async def read_structured(request: web.Request) -> EventIn:
    body = await read_body(request, scan=JsonScan(MAX_DEPTH))
    if not body:
        raise ValidationError("empty body: a CloudEvent is required", code="invalid_json")
    return _from_document(_decode(body, "the CloudEvent"))


async def read_binary(request: web.Request) -> EventIn:
    """The ``ce-`` headers are the attributes (percent-decoded), ``Content-Type`` the
    ``datacontenttype``, the body the data (JSON; empty: ``null``)."""
    attributes: dict[str, Any] = {}
    for name in {n.lower() for n in request.headers if n.lower().startswith(_CE)}:
        values = request.headers.getall(name)
        attribute = name[len(_CE) :]
        if len(values) != 1:
            raise CloudEventInvalid("an attribute is sent once", attribute=attribute)
        try:
            attributes[attribute] = unquote(values[0], errors="strict")
        except UnicodeDecodeError as exc:
            raise CloudEventInvalid(
                "a percent-encoded value is not UTF-8", attribute=attribute
            ) from exc
    if "datacontenttype" in attributes:
        raise CloudEventInvalid(
            "in binary mode datacontenttype is the Content-Type header", attribute="datacontenttype"
        )
    content_type = request.headers.get("Content-Type")
    if content_type is not None:
        if not is_json_media(content_type):  # refused before the body is read
            raise CloudEventUnsupported(
                "hookproof events carry JSON data: Content-Type must be a JSON media type",
                attribute="datacontenttype",
            )
        attributes["datacontenttype"] = content_type
    body = await read_body(request, scan=JsonScan(MAX_DEPTH))
    data = _decode(body, "the data") if body else None
    return from_attributes(attributes, data, typed=False)


class _Refused(ValidationError):
    """An entry of a batch refused on its own; remembers the id it named."""

    def __init__(self, err: HookproofError, event_id: str | None) -> None:
        super().__init__(err.detail, code=err.code, **err.extra)
        self.title = err.title
        self.event_id = event_id


async def read_batch(request: web.Request) -> list[EventIn | HookproofError]:
    """A JSON array of CloudEvents (empty allowed, as the batch format says), each mapped on
    its own: a refused one is its own 400 result, the others go on."""
    too_many = TooManyEntries(
        f"a batch holds at most {MAX_BATCH_EVENTS} CloudEvents", code="batch_too_large"
    )
    scan = JsonScan(MAX_DEPTH + 1, count_depth=1, max_entries=MAX_BATCH_EVENTS, too_many=too_many)
    body = await read_body(request, MAX_BATCH_BODY, scan)
    if not body:
        raise ValidationError("empty body: a JSON array is required", code="invalid_json")
    try:
        raw = msgspec.json.decode(body, type=list[msgspec.Raw])
    except msgspec.ValidationError as exc:
        raise CloudEventInvalid("a batch is a JSON array of CloudEvents", attribute=None) from exc
    except msgspec.DecodeError as exc:
        raise ValidationError(f"malformed JSON: {exc}", code="invalid_json") from exc
    if len(raw) > MAX_BATCH_EVENTS:
        raise ValidationError(
            f"a batch holds at most {MAX_BATCH_EVENTS} CloudEvents", code="batch_too_large"
        )
    return [_entry(r) for r in raw]


def _entry(raw: msgspec.Raw) -> EventIn | HookproofError:
    doc = msgspec.json.decode(raw)  # the array decoded, so each entry is JSON
    event_id = doc.get("id") if isinstance(doc, dict) else None
    if not isinstance(event_id, str) or len(event_id) > 200:
        event_id = None
    if len(raw) > MAX_BODY:
        return _Refused(
            ValidationError(f"a CloudEvent is at most {MAX_BODY} bytes", code="body_too_large"),
            event_id,
        )
    try:
        return _from_document(doc)
    except ValidationError as exc:
        return _Refused(exc, event_id)
