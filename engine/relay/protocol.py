"""The frames of a relay session (``GET /v1/relay/{subscriptionId}``, JSON text frames; pure).

Engine -> CLI:

- ``{"type": "attached", "subscriptionId", "sessionId", "endpoint"}`` once, first;
- ``{"type": "request", "exchangeId", "kind": "delivery"|"challenge", "deliveryId",
  "attempt", "headers": {...}, "body": "<standard base64 of the exact bytes>"}``: POST these
  bytes with these headers to the local receiver (a challenge's ``deliveryId`` is the
  challenge id, ``attempt`` 1);
- ``{"type": "replaced"}`` before the engine closes a session another attach replaced.

CLI -> engine: ``{"type": "report", "exchangeId", "deliveryId", "attempt", "status": <int> |
null, "error": null | "relay_local_unreachable" | "relay_local_failed", "contentType"?,
"body"?, "answeredBy"?}``: what the local receiver answered (``body``, base64, only for a
challenge: the engine verifies the proof in it). ``answeredBy: "cli"``: the CLI answered a
challenge itself (``listen --answer-challenge``), the receiver was not asked; the evidence
says so. A report is credited only to the exchange whose id, delivery
id and attempt it names, on the session that sent it; anything else is dropped and logged.
"""

from __future__ import annotations

import base64
import binascii
from typing import Final, Literal

import msgspec

__all__ = [
    "ANSWERED_BY_CLI",
    "MAX_INT4",
    "MAX_REPORT_BODY",
    "RelayAttached",
    "RelayReplaced",
    "RelayReport",
    "RelayRequest",
    "ToClient",
    "b64",
    "decode_report",
    "encode",
    "out_of_range",
    "unb64",
]

#: ``answeredBy`` of a challenge the CLI answered itself (``listen --answer-challenge``)
ANSWERED_BY_CLI: Final = "cli"
#: a challenge answer's body the engine keeps (the proof is a few hundred bytes)
MAX_REPORT_BODY: Final = 65_536
#: the largest number a report may carry (an attempt is a Postgres ``integer``)
MAX_INT4: Final = 2**31 - 1
#: the longest id a report may name (the engine's are under 40 characters)
MAX_ID: Final = 200


class _Frame(msgspec.Struct, kw_only=True, rename="camel", tag_field="type"):
    pass


class RelayAttached(_Frame, kw_only=True, tag="attached"):
    subscription_id: str
    session_id: str
    endpoint: str


class RelayRequest(_Frame, kw_only=True, tag="request"):
    exchange_id: str
    kind: Literal["delivery", "challenge"]
    delivery_id: str
    attempt: int
    headers: dict[str, str]
    body: str


class RelayReplaced(_Frame, kw_only=True, tag="replaced"):
    pass


class RelayReport(_Frame, kw_only=True, tag="report", forbid_unknown_fields=True):
    exchange_id: str
    delivery_id: str
    #: bounded by :func:`out_of_range` (1..MAX_INT4): a number Postgres cannot hold closes
    #: the session (1008 ``relay_report_out_of_range``) and is never written
    attempt: int
    status: int | None = None  # outside 100..599: relay_report_invalid (hub.py)
    error: str | None = None
    content_type: str | None = None
    body: str | None = None
    answered_by: Literal["cli"] | None = None


ToClient = RelayAttached | RelayRequest | RelayReplaced


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def unb64(text: str) -> bytes:
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError) as exc:
        raise ValueError("not standard base64") from exc


def decode_report(raw: str | bytes) -> RelayReport:
    """A report frame, or :class:`ValueError` (anything else is not a report)."""
    try:
        return msgspec.json.decode(raw, type=RelayReport)
    except msgspec.ValidationError as exc:
        raise ValueError(str(exc)) from exc
    except msgspec.DecodeError as exc:
        raise ValueError("not JSON") from exc


def out_of_range(report: RelayReport) -> str | None:
    """The field of ``report`` whose value no exchange can have (an attempt below 1 or beyond
    :data:`MAX_INT4`, a status beyond an ``integer``, an id longer than :data:`MAX_ID`), or
    None. Such a report is refused and its session closed, never matched against a row."""
    if not 1 <= report.attempt <= MAX_INT4:
        return "attempt"
    if report.status is not None and not -MAX_INT4 <= report.status <= MAX_INT4:
        return "status"
    if len(report.exchange_id) > MAX_ID:
        return "exchangeId"
    if len(report.delivery_id) > MAX_ID:
        return "deliveryId"
    return None


def encode(frame: ToClient) -> str:
    return msgspec.json.encode(frame).decode("utf-8")
