"""What one attempt sent, as ``GET /v1/deliveries/{id}`` shows it (issue 39, item 3).

Rebuilt, not copied: the method and target, the ids, the content type and the content digest
follow from the delivery's events (``delivery.attempt_admitted`` names the endpoint, the
generation and the payload digest, which is the ``Content-Digest`` of the body); the body is
the event's canonical body, stored once per event in ``event_bodies`` and shown once per
delivery (``requestBody``), never per attempt. What cannot be rebuilt is recorded with the
attempt's outcome (:class:`~hookproof.events.delivery_events.AttemptRequest`, about 120
bytes): the ``traceparent`` sent, the signatures' ``created`` time and the signature profiles.
Signature values (``Signature-Input``, ``Signature``, ``webhook-signature``) are never
recorded nor shown: ``[redacted]``. An endpoint authentication header (DESIGN.md 14: a static
header or an OAuth2 bearer token) is a credential: not shown either.

The header sets are those of ``Dispatcher.base_headers`` and ``keys.signing.sign_headers``
(HTTPS and relay) and of ``destinations.message.build_message`` (a broker: lower-case
``hookproof-*`` ids, signed over ``"@destination"``); tests compare them with what a real
receiver got.
"""

from __future__ import annotations

import re
from typing import Any, Final

from hookproof.events.delivery_events import AttemptAdmitted, AttemptRequest
from hookproof_subscriber import SIG_V1, STANDARD_WEBHOOKS_V1
from hookproof_subscriber.messages import (
    ATTEMPT_HEADER,
    DELIVERY_ID_HEADER,
    EVENT_ID_HEADER,
    GENERATION_HEADER,
    SUBSCRIPTION_HEADER,
)

from ..destinations.port import Evidence, SignedMessage
from ..destinations.registry import installed

__all__ = ["BODY_SHOWN_MAX", "REDACTED", "body_view", "request_view", "sent_request"]

REDACTED: Final = "[redacted]"
#: the request body shown with a delivery: its first 64 KiB as UTF-8 text
BODY_SHOWN_MAX: Final = 64 * 1024
#: what a recorded traceparent may be (W3C trace context, version 00)
_TRACEPARENT: Final = re.compile(r"00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}")
_PROFILES: Final = frozenset({SIG_V1.name, STANDARD_WEBHOOKS_V1})
_PROFILES_MAX: Final = 3


def sent_request(message: SignedMessage, evidence: Evidence) -> AttemptRequest:
    """What to record of an attempt's request: its traceparent (the one a tracing wrapper
    sent, else the message's; dropped unless well-formed), ``created`` and the profiles."""
    tp = evidence.traceparent or message.headers.get("traceparent")
    profiles = list(dict.fromkeys(s.profile for s in message.signers if s.profile in _PROFILES))
    return AttemptRequest(
        traceparent=tp if tp and _TRACEPARENT.fullmatch(tp) else None,
        created=message.created,
        profiles=profiles[:_PROFILES_MAX],
    )


def request_view(
    admitted: AttemptAdmitted,
    *,
    event_id: str,
    subscription_id: str,
    recorded: AttemptRequest | None,
) -> dict[str, Any]:
    """``{"method", "target", "headers": [[name, value]...], "recorded"}`` of one attempt.
    ``recorded``: false when the attempt has no recorded part (lost with its dispatcher, or
    sent before it was recorded): ``traceparent`` and the timestamps then read ``null``."""
    tp = recorded.traceparent if recorded is not None else None
    created = str(recorded.created) if recorded is not None else None
    profiles = recorded.profiles if recorded is not None else _profiles_of(admitted)
    sig_v1 = SIG_V1.name in profiles
    standard = STANDARD_WEBHOOKS_V1 in profiles
    if installed().signs_own_form(admitted.endpoint):  # the kind's own (broker) form
        method = None
        headers: list[list[Any]] = [
            ["content-type", "application/json"],
            ["content-digest", admitted.payload_digest],
            [EVENT_ID_HEADER, event_id],
            [DELIVERY_ID_HEADER, admitted.delivery_id],
            [SUBSCRIPTION_HEADER, subscription_id],
            [GENERATION_HEADER, str(admitted.generation)],
            [ATTEMPT_HEADER, str(admitted.attempt)],
            ["webhook-id", event_id],
            ["traceparent", tp],
        ]
        if sig_v1:
            headers += [["signature-input", REDACTED], ["signature", REDACTED]]
    else:
        method = "POST"
        headers = [
            ["Content-Type", "application/json"],
            ["Webhook-Id", event_id],
            ["Webhook-Delivery-Id", admitted.delivery_id],
            ["Webhook-Attempt", str(admitted.attempt)],
            ["Webhook-Subscription", subscription_id],
            ["Webhook-Generation", str(admitted.generation)],
            ["traceparent", tp],
            ["Content-Digest", admitted.payload_digest],
        ]
        if sig_v1:
            headers += [["Signature-Input", REDACTED], ["Signature", REDACTED]]
    if standard:
        headers += [["webhook-timestamp", created], ["webhook-signature", REDACTED]]
    return {
        "method": method,
        "target": admitted.endpoint,
        "headers": headers,
        "recorded": recorded is not None,
    }


def _profiles_of(admitted: AttemptAdmitted) -> list[str]:
    """The profiles an admission names (a rollout's ``signed_with``: ``profile:keyId``);
    otherwise the default one (an attempt without a recorded request)."""
    if admitted.signed_with:
        return list(dict.fromkeys(s.partition(":")[0] for s in admitted.signed_with))
    return [SIG_V1.name]


def body_view(body: bytes | None, size: int | None = None) -> dict[str, Any]:
    """``requestBody``: ``{"text", "bytes", "truncated", "archived"}``: the first
    :data:`BODY_SHOWN_MAX` bytes of the event's canonical body as text; ``archived`` (text
    ``null``) when the body has left the hot store."""
    if body is None:
        return {"text": None, "bytes": size, "truncated": False, "archived": True}
    shown = body[:BODY_SHOWN_MAX]
    return {
        "text": shown.decode("utf-8", errors="replace"),
        "bytes": len(body),
        "truncated": len(body) > len(shown),
        "archived": False,
    }
