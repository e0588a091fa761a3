"""Broker messages (DESIGN.md section 13): verify a delivery read from RabbitMQ or NATS
JetStream, and answer a challenge that arrived the same way.

A broker message has no request line: its body is the canonical delivery body, its headers
(an AMQP header table, NATS headers) carry ``content-type``, ``content-digest``, the
``hookproof-*`` ids, ``traceparent`` and the signature:

- ``hookproof.sig.v1``: ``signature-input`` / ``signature`` as on HTTP, except that the
  derived HTTP components are replaced by one, ``"@destination"``: the destination URI without
  credentials (:func:`amqp_destination_uri`, :func:`nats_destination_uri`; the engine shows it
  as the subscription's ``destination.uri``). The consumer verifies with the destination it
  reads from, so a message published to another destination does not verify.
- ``standard-webhooks.v1``: ``webhook-id``, ``webhook-timestamp``, ``webhook-signature``
  exactly as on HTTP (the official libraries verify the headers and body unchanged).

Verification outcomes are the HTTP reason codes (:class:`~.sigv1.Reason`); challenge refusals
are the HTTP ones too (``mismatch``, ``wrong_subscription``, ``wrong_endpoint``, ``expired``,
``replayed``, ``malformed``). A broker challenge is answered by POSTing the response body to
``POST /v1/challenges/{challengeId}/response`` on the engine (:func:`send_challenge_response`).
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import secrets
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import quote

from .applier import Event
from .challenge import (
    CHALLENGE_TYPE,
    ChallengeError,
    _parse_rfc3339,
    build_challenge_response,
    parse_challenge,
)
from .digest import content_digest
from .extras import require_aiohttp
from .freshness import DEFAULT_MAX_AGE, Freshness, epoch_seconds
from .keys import ED25519, HMAC_SHA256, KeyResolver, SigningKey
from .profiles import NEXT_LABEL, PROFILES, ProfileVerification, _may_refresh, _standard_keys
from .rfc9421 import (
    SignatureFormatError,
    build_message_base,
    normalize_headers,
    serialize_signature_params,
    sign_bytes,
)
from .sigv1 import (
    SIG_V1,
    AsyncKeyResolver,
    NonceCache,
    Profile,
    Reason,
    VerifyResult,
    _OneKey,
    _verify,
    mark_unavailable,
    peek_key_id,
)
from .stdwebhooks import STANDARD_WEBHOOKS_V1, candidate_keys, verify_standard

__all__ = [
    "ATTEMPT_HEADER",
    "DELIVERY_ID_HEADER",
    "EVENT_ID_HEADER",
    "GENERATION_HEADER",
    "MESSAGE_COMPONENTS",
    "SIG_V1_MESSAGE",
    "SIG_V1_MESSAGE_NEXT",
    "SUBSCRIPTION_HEADER",
    "TRANSIENT_REASONS",
    "BrokerChallengeAnswer",
    "BrokerDelivery",
    "MessageVerificationError",
    "amqp_destination_uri",
    "answer_broker_challenge",
    "averify_message",
    "averify_message_any",
    "challenge_response_url",
    "destination_digest",
    "encode_segment",
    "message_headers",
    "nats_destination_uri",
    "send_challenge_response",
    "sign_message",
    "sign_normalized_message",
    "verify_broker_message",
    "verify_message",
]

EVENT_ID_HEADER = "hookproof-event-id"
DELIVERY_ID_HEADER = "hookproof-delivery-id"
SUBSCRIPTION_HEADER = "hookproof-subscription-id"
GENERATION_HEADER = "hookproof-generation"
ATTEMPT_HEADER = "hookproof-attempt"

#: ``hookproof.sig.v1`` on a broker message: ``"@destination"`` instead of the HTTP components.
MESSAGE_COMPONENTS: tuple[str, ...] = (
    "@destination",
    "content-digest",
    "content-type",
    EVENT_ID_HEADER,
    DELIVERY_ID_HEADER,
    SUBSCRIPTION_HEADER,
    GENERATION_HEADER,
)
SIG_V1_MESSAGE: Profile = dataclasses.replace(SIG_V1, components=MESSAGE_COMPONENTS)
#: The second label of a key rollout, on a message.
SIG_V1_MESSAGE_NEXT: Profile = dataclasses.replace(SIG_V1_MESSAGE, label=NEXT_LABEL)

#: Reasons a later attempt may not give (keys could not be downloaded): redeliver, never drop.
TRANSIENT_REASONS = frozenset({str(Reason.KEYS_UNAVAILABLE)})
#: The default: 7 days from the signature's creation, no nonce check (dedupe by delivery id).
_FRESH = Freshness()

_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_MAX_HEADERS = 64
_MAX_BODY = 1 << 20


# -- the destination URI ---------------------------------------------------------------------


def encode_segment(text: str) -> str:
    """Percent-encode every UTF-8 byte outside RFC 3986 unreserved (``/`` too): one path
    segment of a destination URI (``"/"`` -> ``"%2F"``, ``""`` -> ``""``)."""
    return quote(text, safe="", encoding="utf-8", errors="strict").replace("%7E", "~")


def _authority(host: str, port: int) -> str:
    host = host.lower()
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def amqp_destination_uri(
    scheme: str, host: str, port: int, vhost: str, exchange: str, routing_key: str
) -> str:
    """``amqps://host:5671/<vhost>/<exchange>/<routingKey>``, each segment percent-encoded
    (the default vhost ``/`` is ``%2F``, as RabbitMQ's URI spec writes it)."""
    return (
        f"{scheme.lower()}://{_authority(host, port)}/{encode_segment(vhost)}"
        f"/{encode_segment(exchange)}/{encode_segment(routing_key)}"
    )


def nats_destination_uri(scheme: str, host: str, port: int, subject: str) -> str:
    """``tls://host:4222/<subject>`` (the subject percent-encoded as one segment)."""
    return f"{scheme.lower()}://{_authority(host, port)}/{encode_segment(subject)}"


def destination_digest(destination_uri: str) -> str:
    """Lowercase hex SHA-256 of the destination URI (UTF-8): a broker challenge's
    ``endpointDigest``."""
    return hashlib.sha256(destination_uri.encode("utf-8")).hexdigest()


# -- headers ---------------------------------------------------------------------------------


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("ascii")
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise TypeError("a message header value must be text")


def message_headers(headers: Any) -> dict[str, str]:
    """A broker message's headers as lower-case text (an AMQP header table with ``str``,
    ASCII ``bytes`` or integer values, NATS headers, or name/value pairs). Raises
    :class:`~.rfc9421.SignatureFormatError` (``malformed``) for anything else."""
    if headers is None:
        return {}
    items: Iterable[tuple[Any, Any]] = headers.items() if hasattr(headers, "items") else headers
    pairs: list[tuple[str, str]] = []
    try:
        for name, value in items:
            if isinstance(value, list | tuple):  # a repeated header (NATS)
                pairs.extend((_text(name), _text(v)) for v in value)
            else:
                pairs.append((_text(name), _text(value)))
            if len(pairs) > _MAX_HEADERS:
                raise SignatureFormatError("malformed", "too many headers")
    except (TypeError, ValueError, UnicodeError) as exc:
        if isinstance(exc, SignatureFormatError):
            raise
        raise SignatureFormatError("malformed", "headers are not text name/value pairs") from exc
    return normalize_headers(pairs)


# -- signing and verifying one profile -------------------------------------------------------


def sign_message(
    headers: Mapping[str, str],
    body: bytes,
    destination: str,
    *,
    key: SigningKey,
    created: int | None = None,
    expires: int | None = None,
    nonce: str | None = None,
    label: str | None = None,
    lifetime: int = 300,
) -> dict[str, str]:
    """Sign a broker message under ``hookproof.sig.v1``: return ``content-digest``,
    ``signature-input`` and ``signature``. *headers* must hold the covered ``content-type``
    and ``hookproof-*`` ids."""
    if not isinstance(body, bytes | bytearray | memoryview):
        raise TypeError("body must be bytes")
    hdrs = normalize_headers(headers)
    digest = content_digest(bytes(body))
    if hdrs.get("content-digest", digest) != digest:
        raise ValueError("existing content-digest does not match the body")
    hdrs["content-digest"] = digest
    return sign_normalized_message(
        hdrs,
        destination,
        key=key,
        created=created,
        expires=expires,
        nonce=nonce,
        label=label,
        lifetime=lifetime,
    )


def sign_normalized_message(
    headers: Mapping[str, str],
    destination: str,
    *,
    key: SigningKey,
    created: int | None = None,
    expires: int | None = None,
    nonce: str | None = None,
    label: str | None = None,
    lifetime: int = 300,
) -> dict[str, str]:
    """:func:`sign_message` for a sender whose *headers* are already lower-case, printable
    ASCII and hold the body's ``content-digest`` (the engine builds them so): no copy, no
    second digest. Returns the same three headers."""
    profile = SIG_V1_MESSAGE
    if key.alg not in profile.algorithms:
        raise ValueError(f"profile {profile.name} does not allow {key.alg}")
    label = profile.label if label is None else label
    created = int(time.time()) if created is None else created
    expires = created + lifetime if expires is None else expires
    nonce = secrets.token_urlsafe(16) if nonce is None else nonce
    hdrs = headers
    digest = hdrs["content-digest"]
    params: list[tuple[str, int | str]] = [
        ("created", created),
        ("expires", expires),
        ("keyid", key.key_id),
        ("alg", key.alg),
        ("nonce", nonce),
        ("tag", profile.tag),
    ]
    sig_params = serialize_signature_params(profile.components, params)
    try:
        base = build_message_base(destination, hdrs, profile.components, sig_params)
    except SignatureFormatError as exc:
        raise ValueError(exc.detail) from exc
    signature = sign_bytes(key, base)
    return {
        "content-digest": digest,
        "signature-input": f"{label}={sig_params}",
        "signature": f"{label}=:{base64.b64encode(signature).decode('ascii')}:",
    }


def verify_message(
    headers: Any,
    body: bytes,
    destination: str,
    *,
    keys: KeyResolver,
    now: int | None = None,
    nonce_cache: NonceCache | None = None,
    profile: Profile = SIG_V1_MESSAGE,
    accept_not_before: bool = False,
    expected: Mapping[str, str] | None = None,
    freshness: Freshness | None = _FRESH,
) -> VerifyResult:
    """Verify a message's ``hookproof.sig.v1`` signature for *destination*. Never raises;
    the reason codes are the HTTP verifier's. The message's age is judged by *freshness*
    (default: 7 days from the signature's creation; no nonce check: dedupe by delivery id);
    ``freshness=None`` applies the signature's own time window and *nonce_cache*."""
    try:
        hdrs = message_headers(headers)
        return _verify(
            "POST",
            "",
            hdrs,
            body,
            keys,
            now,
            nonce_cache,
            profile,
            None,
            accept_not_before,
            expected,
            destination=destination,
            freshness=freshness,
        )
    except SignatureFormatError as exc:
        return VerifyResult(ok=False, reason=Reason(exc.reason), detail=exc.detail)
    except Exception as exc:
        return VerifyResult(
            ok=False, reason=Reason.MALFORMED, detail=f"unexpected input ({type(exc).__name__})"
        )


async def averify_message(
    headers: Any,
    body: bytes,
    destination: str,
    *,
    keys: KeyResolver | AsyncKeyResolver,
    now: int | None = None,
    nonce_cache: NonceCache | None = None,
    profile: Profile = SIG_V1_MESSAGE,
    accept_not_before: bool = False,
    expected: Mapping[str, str] | None = None,
    freshness: Freshness | None = _FRESH,
) -> VerifyResult:
    """:func:`verify_message` for resolvers that fetch keys (a JWKS): a key that could not be
    downloaded is ``keys_unavailable`` (transient), not ``unknown_key``."""
    resolver: Any = keys
    failed: str | None = None
    if isinstance(keys, AsyncKeyResolver):
        try:
            kid = peek_key_id(message_headers(headers), profile)
        except SignatureFormatError:
            kid = None
        try:
            key = await keys.aresolve(kid) if kid is not None else None
        except Exception as exc:
            key, failed = None, type(exc).__name__
        resolver = _OneKey(kid, key)
    res = verify_message(
        headers,
        body,
        destination,
        keys=resolver,
        now=now,
        nonce_cache=nonce_cache,
        profile=profile,
        accept_not_before=accept_not_before,
        expected=expected,
        freshness=freshness,
    )
    return mark_unavailable(res, keys, failed)


_REFRESH_ON = (Reason.UNKNOWN_KEY, Reason.BAD_SIGNATURE, Reason.KEY_NOT_YET_VALID)


async def averify_message_any(
    headers: Any,
    body: bytes,
    destination: str,
    *,
    keys: KeyResolver | AsyncKeyResolver,
    accept: Iterable[str] = PROFILES,
    now: int | None = None,
    nonce_cache: NonceCache | None = None,
    accept_not_before: bool = False,
    expected: Mapping[str, str] | None = None,
    freshness: Freshness | None = _FRESH,
) -> ProfileVerification:
    """Every accepted signature a message carries, each verified on its own (as
    :func:`~.profiles.averify_any` for HTTP), its age judged by *freshness*. Never raises."""
    try:
        hdrs = message_headers(headers)
    except SignatureFormatError as exc:
        bad = VerifyResult(ok=False, reason=Reason(exc.reason), detail=exc.detail)
        return ProfileVerification(False, bad.reason, (), {}, bad)
    wanted = set(accept)
    results: dict[str, VerifyResult] = {}
    sig_input = hdrs.get("signature-input", "")
    present: list[tuple[str, Profile | None]] = []
    if f"{SIG_V1_MESSAGE.label}=" in sig_input:
        present.append((SIG_V1.name, SIG_V1_MESSAGE))
    if f"{NEXT_LABEL}=" in sig_input:
        present.append((f"{SIG_V1.name}#{NEXT_LABEL}", SIG_V1_MESSAGE_NEXT))
    if "webhook-signature" in hdrs:
        present.append((STANDARD_WEBHOOKS_V1, None))
    for name, profile in present:
        if name.split("#", 1)[0] not in wanted:
            continue
        if profile is None:
            res = verify_standard(
                hdrs,
                body,
                keys=await _standard_keys(keys),
                now=now,
                nonce_cache=nonce_cache,
                accept_not_before=accept_not_before,
                freshness=freshness,
            )
            if not res.ok and res.reason in _REFRESH_ON and _may_refresh(keys):
                await keys.refresh()  # type: ignore[union-attr]
                res = verify_standard(
                    hdrs,
                    body,
                    keys=candidate_keys(keys),
                    now=now,
                    nonce_cache=nonce_cache,
                    accept_not_before=accept_not_before,
                    freshness=freshness,
                )
            res = mark_unavailable(res, keys)
        else:
            res = await averify_message(
                hdrs,
                body,
                destination,
                keys=keys,
                now=now,
                nonce_cache=nonce_cache,
                profile=profile,
                accept_not_before=accept_not_before,
                expected=expected,
                freshness=freshness,
            )
        results[name] = res
    if not results:
        none = VerifyResult(ok=False, reason=Reason.MALFORMED, detail="no accepted signature")
        return ProfileVerification(False, Reason.MALFORMED, (), {}, none)
    verified = tuple(dict.fromkeys(n.split("#", 1)[0] for n, r in results.items() if r.ok))
    chosen = next((r for r in results.values() if r.ok), next(iter(results.values())))
    return ProfileVerification(chosen.ok, chosen.reason, verified, results, chosen)


# -- a verified delivery ---------------------------------------------------------------------


class MessageVerificationError(ValueError):
    """A message that must not be applied; ``reason`` is a verifier reason code.
    ``transient`` (``keys_unavailable``): the message may verify later, so leave it for
    redelivery (AMQP nack with requeue, NATS nak with a delay), never drop it; any other
    reason is permanent for these bytes."""

    def __init__(self, reason: str, detail: str = "", key_id: str | None = None) -> None:
        super().__init__(detail or reason)
        self.reason = reason
        self.detail = detail or reason
        self.key_id = key_id

    @property
    def transient(self) -> bool:
        return self.reason in TRANSIENT_REASONS


@dataclass(frozen=True, slots=True)
class BrokerDelivery:
    """A verified broker delivery: the event (ids from the ``hookproof-*`` headers), the
    attempt number and which profiles verified."""

    event: Event
    attempt: int | None
    verified: tuple[str, ...]
    key_id: str | None


def _int(text: str | None) -> int | None:
    return int(text) if text is not None and text.isascii() and text.isdigit() else None


def _event(body: bytes, hdrs: Mapping[str, str]) -> Event:
    event = Event.from_delivery(body)
    if hdrs.get(EVENT_ID_HEADER, event.event_id) != event.event_id:
        raise ValueError("hookproof-event-id differs from the body's eventId")
    if hdrs.get("webhook-id", event.event_id) != event.event_id:
        raise ValueError("webhook-id differs from the body's eventId")
    return dataclasses.replace(
        event,
        delivery_id=hdrs.get(DELIVERY_ID_HEADER, ""),
        subscription_id=hdrs.get(SUBSCRIPTION_HEADER, ""),
        generation=_int(hdrs.get(GENERATION_HEADER)),
        traceparent=hdrs.get("traceparent"),
    )


async def verify_broker_message(
    headers: Any,
    body: bytes,
    destination: str,
    *,
    keys: KeyResolver | AsyncKeyResolver,
    subscription_id: str | None = None,
    accept: Iterable[str] = PROFILES,
    now: int | None = None,
    nonce_cache: NonceCache | None = None,
    enqueued_at: datetime | float | None = None,
    max_age: int = DEFAULT_MAX_AGE,
) -> BrokerDelivery:
    """Verify a message read from *destination* and return the delivery; raise
    :class:`MessageVerificationError` with the reason code otherwise (its ``transient`` says
    whether to leave the message for redelivery). *subscription_id* pins the subscription (a
    validly signed message for another one is ``bad_signature``).

    Freshness (DESIGN.md section 13): the message's age is measured from *enqueued_at*, the
    broker's enqueue time (aio-pika ``message.timestamp``, nats-py
    ``msg.metadata.timestamp``; a ``datetime`` or Unix seconds), else from the signature's
    creation, and may be at most *max_age* seconds (default 7 days): a message that waited
    in a queue is not stale. Replays are the consumer's to drop by delivery id
    (``message_id``, ``Nats-Msg-Id``); *nonce_cache* is not consulted (a redelivery carries
    the same nonce) and stays only for compatibility."""
    if not isinstance(body, bytes | bytearray) or len(body) > _MAX_BODY:
        raise MessageVerificationError("malformed", "body must be bytes of at most 1 MiB")
    body = bytes(body)
    try:
        freshness = Freshness(max_age, epoch_seconds(enqueued_at))
    except (TypeError, ValueError, OverflowError, OSError) as exc:
        raise MessageVerificationError("malformed", f"enqueued_at or max_age: {exc}") from exc
    expected = {SUBSCRIPTION_HEADER: subscription_id} if subscription_id else None
    res = await averify_message_any(
        headers,
        body,
        destination,
        keys=keys,
        accept=accept,
        now=now,
        expected=expected,
        freshness=freshness,
    )
    chosen = res.result
    if not res.ok or chosen is None:
        raise MessageVerificationError(
            str(res.reason), chosen.detail if chosen else "", chosen.key_id if chosen else None
        )
    hdrs = message_headers(headers)
    if subscription_id and hdrs.get(SUBSCRIPTION_HEADER) != subscription_id:
        # standard-webhooks.v1 does not sign the subscription header: compare it in the clear
        raise MessageVerificationError("bad_signature", "message is for another subscription")
    try:
        event = _event(body, hdrs)
    except (ValueError, TypeError, KeyError) as exc:
        raise MessageVerificationError("malformed", str(exc), chosen.key_id) from exc
    return BrokerDelivery(event, _int(hdrs.get(ATTEMPT_HEADER)), res.verified, chosen.key_id)


# -- challenges ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BrokerChallengeAnswer:
    """``ok`` with the response ``body`` to POST for ``challenge_id``, or a refusal
    ``reason`` (the HTTP challenge codes)."""

    ok: bool
    reason: str
    challenge_id: str | None = None
    body: bytes = b""


def is_challenge_message(body: bytes) -> bool:
    """Whether a message body is a ``hookproof.challenge.v1``."""
    try:
        doc = json.loads(body)
    except (ValueError, UnicodeError, TypeError):
        return False
    return isinstance(doc, dict) and doc.get("type") == CHALLENGE_TYPE


async def answer_broker_challenge(
    headers: Any,
    body: bytes,
    destination: str,
    *,
    keys: KeyResolver | AsyncKeyResolver,
    receipt_key: SigningKey | None = None,
    subscription_id: str | None = None,
    accept: Iterable[str] = PROFILES,
    now: float | None = None,
    nonce_cache: NonceCache | None = None,
) -> BrokerChallengeAnswer:
    """Verify a challenge read from *destination* and build the
    ``hookproof.challenge-response.v1`` body (never raises). The proof is the HMAC under
    the secret that verified the challenge, else an Ed25519 signature under *receipt_key*.
    A challenge id is answered once per *nonce_cache*."""
    clock = time.time() if now is None else now
    res = await averify_message_any(
        headers,
        body,
        destination,
        keys=keys,
        accept=accept,
        now=int(clock),
        nonce_cache=nonce_cache,
        accept_not_before=True,
    )
    chosen = res.result
    if not res.ok or chosen is None:
        return BrokerChallengeAnswer(False, str(res.reason))
    named_key = res.verified != (STANDARD_WEBHOOKS_V1,)
    challenge_id: str | None = None
    try:
        doc = parse_challenge(bytes(body))
        challenge_id = doc["challengeId"]
        hdrs = message_headers(headers)
        for name in (EVENT_ID_HEADER, DELIVERY_ID_HEADER, "webhook-id"):
            if hdrs.get(name) != challenge_id:
                raise ChallengeError("mismatch", f"{name} is not the challenge id")
        if hdrs.get(SUBSCRIPTION_HEADER) != doc["subscriptionId"]:
            raise ChallengeError("mismatch", "signed subscription differs from the body")
        if hdrs.get(GENERATION_HEADER) != str(doc["generation"]):
            raise ChallengeError("mismatch", "signed generation differs from the body")
        if named_key and doc["keyId"] != chosen.key_id:
            raise ChallengeError("mismatch", "keyId is not the signing key")
        if subscription_id is not None and doc["subscriptionId"] != subscription_id:
            raise ChallengeError("wrong_subscription", "not our subscription")
        if doc["endpointDigest"] != destination_digest(destination):
            raise ChallengeError("wrong_endpoint", "endpointDigest is not our destination's")
        expires = _parse_rfc3339(doc["expiresAt"])
        if expires < clock:
            raise ChallengeError("expired", "challenge expired")
        key = chosen.key
        secret = key.secret if (chosen.alg == HMAC_SHA256 and key is not None) else None
        if secret is None and receipt_key is not None and receipt_key.alg != ED25519:
            raise ChallengeError("malformed", "the receipt key must be Ed25519")
        out = build_challenge_response(
            bytes(body), secret=secret, receipt_key=None if secret else receipt_key
        )
        if nonce_cache is not None and not nonce_cache.check_and_add(
            "hookproof.challenge", challenge_id, int(expires) + 1, int(clock)
        ):
            raise ChallengeError("replayed", "challenge already answered")
    except ChallengeError as exc:
        return BrokerChallengeAnswer(False, exc.reason, challenge_id)
    except Exception:
        return BrokerChallengeAnswer(False, "malformed", challenge_id)
    return BrokerChallengeAnswer(True, str(Reason.OK), challenge_id, out)


def challenge_response_url(engine_url: str, challenge_id: str) -> str:
    """``{engine}/v1/challenges/{challengeId}/response``."""
    return f"{engine_url.rstrip('/')}/v1/challenges/{encode_segment(challenge_id)}/response"


async def send_challenge_response(
    engine_url: str,
    answer: BrokerChallengeAnswer,
    *,
    session: Any = None,
    request_timeout: float = 10.0,
) -> tuple[int, bytes]:
    """POST an ``ok`` answer to the engine with aiohttp; return ``(status, response body)``.
    No token: the proof inside authenticates it. Without aiohttp installed:
    :class:`~.extras.MissingExtraError`."""
    aiohttp = require_aiohttp("send_challenge_response")

    if not answer.ok or answer.challenge_id is None:
        raise ValueError(f"a refused challenge is not answered ({answer.reason})")
    url = challenge_response_url(engine_url, answer.challenge_id)
    own = session is None
    if own:
        session = aiohttp.ClientSession(
            timeout=aiohttp.ClientTimeout(total=request_timeout), trust_env=False
        )
    try:
        async with session.post(
            url,
            data=answer.body,
            headers={"Content-Type": "application/json"},
            allow_redirects=False,
        ) as resp:
            return resp.status, await resp.content.read(1 << 16)
    finally:
        if own:
            await session.close()
