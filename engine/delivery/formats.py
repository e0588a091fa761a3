"""Delivery formats (DESIGN.md section 16), pure: the bytes and content headers an attempt
sends for a subscription's ``format``, made from the event's canonical body.

``hookproof``: the canonical body as it is, ``Content-Type: application/json``.
``cloudevents-structured``: one CloudEvent in the JSON event format,
``Content-Type: application/cloudevents+json``. ``cloudevents-binary``: the data (the
payload) as the body, ``Content-Type: application/json``, every other attribute a ``ce-``
header (percent-encoded as the HTTP binding says). The attributes: ``specversion`` 1.0,
``id`` the eventId, ``source`` the sender's or ``/tenants/<tenantId>``, ``type`` the topic,
``subject`` the aggregateId, ``time`` occurredAt, ``datacontenttype`` application/json, the
extensions ``aggregateversion`` and ``eventversion``, and those the publisher gave. What is
made here is what is signed and sent: the dispatcher signs these bytes and headers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import quote

import msgspec

from hookproof.events.canonical import canonical_json

if TYPE_CHECKING:
    from .admission import ClaimRow

__all__ = ["FORMATS", "HOOKPROOF", "cloudevent_of", "render", "render_row"]

HOOKPROOF: Final = "hookproof"
STRUCTURED: Final = "cloudevents-structured"
BINARY: Final = "cloudevents-binary"
FORMATS: Final = (HOOKPROOF, STRUCTURED, BINARY)
JSON: Final = "application/json"
#: HTTP binding 3.1.3.2: printable ASCII is sent as it is, but space, '"' and '%'
_SAFE: Final = "".join(c for c in map(chr, range(0x21, 0x7F)) if c not in ' "%')


def cloudevent_of(body: bytes, tenant_id: str) -> tuple[dict[str, Any], Any]:
    """The CloudEvent attributes and data of a canonical hookproof body."""
    e = msgspec.json.decode(body)
    attributes: dict[str, Any] = {
        **(e.get("extensions") or {}),  # the publisher's own: never over the mapped ones
        "specversion": "1.0",
        "id": e["eventId"],
        "source": e.get("source") or f"/tenants/{tenant_id}",
        "type": e["type"],
        "subject": e["aggregateId"],
        "time": e["occurredAt"],
        "datacontenttype": JSON,
        "aggregateversion": e["aggregateVersion"],
        "eventversion": e["version"],
    }
    return attributes, e.get("payload")


def render(fmt: str, body: bytes, tenant_id: str) -> tuple[bytes, dict[str, str]]:
    """The body an attempt sends and its content headers, for the format ``fmt``."""
    if fmt == HOOKPROOF:
        return body, {"Content-Type": JSON}
    if fmt not in FORMATS:
        raise ValueError(f"unknown delivery format {fmt!r}")
    attributes, data = cloudevent_of(body, tenant_id)
    if fmt == STRUCTURED:
        return canonical_json({**attributes, "data": data}), {
            "Content-Type": "application/cloudevents+json"
        }
    headers = {"Content-Type": JSON}  # binary mode
    for name, value in attributes.items():
        if name != "datacontenttype":  # the Content-Type header says it
            headers[f"ce-{name}"] = quote(_text(value), safe=_SAFE)
    return canonical_json(data), headers


def render_row(
    row: ClaimRow, bodies: Mapping[tuple[str, str], bytes]
) -> tuple[bytes, dict[str, str]]:
    """:func:`render` for a claimed row, from the canonical bodies by (tenant, event)."""
    return render(row.format, bodies[(row.tenant_id, row.event_id)], row.tenant_id)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
