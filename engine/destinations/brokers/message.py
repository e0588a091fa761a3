"""The message a broker destination receives (DESIGN.md section 13). Pure: no I/O.

Body: the stored canonical bytes an HTTPS delivery sends. Headers (lower-case names; an AMQP
header table, NATS headers), in this order:

- ``content-type`` (``application/json``) and ``content-digest`` (RFC 9530 over the body);
- the ``hookproof-*`` ids: ``hookproof-event-id``, ``hookproof-delivery-id``,
  ``hookproof-subscription-id``, ``hookproof-generation``, ``hookproof-attempt``; and
  ``webhook-id`` (the event id, stable across retries, as on HTTP);
- ``traceparent``;
- the signatures: ``hookproof.sig.v1`` as ``signature-input`` / ``signature`` over
  ``"@destination"`` (the destination URI without credentials) and the content and id fields
  (``hookproof_subscriber.MESSAGE_COMPONENTS``), label ``hookproof`` (a rollout's second key:
  ``hookproof-next``); ``standard-webhooks.v1`` as ``webhook-timestamp`` and
  ``webhook-signature`` exactly as on HTTP.

A challenge goes out the same way with the challenge id as event and delivery id and attempt 1
(:func:`build_challenge_message`). The broker-specific properties are the publishers': AMQP
``message_id`` = delivery id, ``timestamp`` = the signing time, persistent
(``delivery_mode`` 2), ``mandatory``; NATS
``Nats-Msg-Id`` = delivery id (:attr:`BrokerMessage.message_id`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from hookproof_subscriber import (
    NEXT_LABEL,
    SIG_V1,
    STANDARD_WEBHOOKS_V1,
    content_digest,
    sign_standard,
)
from hookproof_subscriber.messages import (
    ATTEMPT_HEADER,
    DELIVERY_ID_HEADER,
    EVENT_ID_HEADER,
    GENERATION_HEADER,
    SUBSCRIPTION_HEADER,
    sign_normalized_message,
)

from ...keys.signing import Signer

__all__ = ["CONTENT_TYPE", "BrokerMessage", "build_challenge_message", "build_message"]

CONTENT_TYPE = "application/json"
#: what an id header value may be: printable ASCII without spaces (so no header smuggling)
_TOKEN = re.compile(r"[\x21-\x7e]{1,512}")


@dataclass(frozen=True, slots=True)
class BrokerMessage:
    """What is published: ``headers`` (ordered, lower-case), ``body`` (the exact canonical
    bytes), ``message_id`` (the delivery id: AMQP ``message_id``, NATS ``Nats-Msg-Id``) and
    ``created`` (the signing time in Unix seconds: the AMQP ``timestamp`` property)."""

    headers: dict[str, str]
    body: bytes
    message_id: str
    content_type: str = CONTENT_TYPE
    created: int = 0


def build_message(
    destination_uri: str,
    body: bytes,
    *,
    event_id: str,
    delivery_id: str,
    subscription_id: str,
    generation: int,
    attempt: int,
    signers: Sequence[Signer],
    created: int,
    lifetime: int,
    traceparent: str,
) -> BrokerMessage:
    """The signed message of one attempt (at least one signer; at most two
    ``hookproof.sig.v1`` ones). Raises ValueError for an unknown profile or a bad id."""
    if not signers:
        raise ValueError("at least one signer is needed")
    for value in (event_id, delivery_id, subscription_id, traceparent):
        if not _TOKEN.fullmatch(value):
            raise ValueError("an id or traceparent is not printable ASCII without spaces")
    headers: dict[str, str] = {
        "content-type": CONTENT_TYPE,
        "content-digest": content_digest(body),
        EVENT_ID_HEADER: event_id,
        DELIVERY_ID_HEADER: delivery_id,
        SUBSCRIPTION_HEADER: subscription_id,
        GENERATION_HEADER: str(generation),
        ATTEMPT_HEADER: str(attempt),
        "webhook-id": event_id,
        "traceparent": traceparent,
    }
    inputs: list[str] = []
    signatures: list[str] = []
    standard = []
    for signer in signers:
        if signer.profile == STANDARD_WEBHOOKS_V1:
            standard.append(signer.key)
            continue
        if signer.profile != SIG_V1.name:
            raise ValueError(f"unknown signature profile {signer.profile!r}")
        if len(inputs) >= 2:
            raise ValueError("at most two hookproof.sig.v1 signatures")
        signed = sign_normalized_message(
            headers,
            destination_uri,
            key=signer.key,
            created=created,
            lifetime=lifetime,
            label=SIG_V1.label if not inputs else NEXT_LABEL,
        )
        inputs.append(signed["signature-input"])
        signatures.append(signed["signature"])
    if inputs:
        headers["signature-input"] = ", ".join(inputs)
        headers["signature"] = ", ".join(signatures)
    if standard:
        std = sign_standard(event_id, body, standard, timestamp=created)
        headers["webhook-timestamp"] = std["webhook-timestamp"]
        headers["webhook-signature"] = std["webhook-signature"]
    return BrokerMessage(headers, bytes(body), delivery_id, created=created)


def build_challenge_message(
    destination_uri: str,
    body: bytes,
    *,
    challenge_id: str,
    subscription_id: str,
    generation: int,
    signers: Sequence[Signer],
    created: int,
    lifetime: int,
    traceparent: str,
) -> BrokerMessage:
    """A ``hookproof.challenge.v1`` body published like a delivery: the challenge id is
    the event and delivery id (so ``webhook-id`` and ``Nats-Msg-Id`` too), attempt 1."""
    return build_message(
        destination_uri,
        body,
        event_id=challenge_id,
        delivery_id=challenge_id,
        subscription_id=subscription_id,
        generation=generation,
        attempt=1,
        signers=signers,
        created=created,
        lifetime=lifetime,
        traceparent=traceparent,
    )
