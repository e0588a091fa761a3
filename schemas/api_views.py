"""The members of the API's larger views, typed (issue 49: the document names every member
the engine sends): a subscription's parts (retry policy, receipt key, auth, rate limit,
destination, pending challenge), a delivery attempt's and a delivery's parts (broker answer,
dead letter, ordering, receipt), the JWK, and the problem body with its extra members.
``api_out`` builds the views from them."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

__all__ = [
    "AmqpAnswer",
    "ApplicationReceiptView",
    "AuthView",
    "BrokerAnswer",
    "ChallengeOutcome",
    "DeadLetterInfo",
    "DestinationView",
    "JetStreamAnswer",
    "JsonPointerError",
    "Jwk",
    "OrderingGap",
    "OrderingInfo",
    "PendingChallenge",
    "Problem",
    "RateLimitView",
    "ReceiptConflictView",
    "ReceiptKeyView",
    "RetryPolicyView",
]

U = msgspec.UnsetType
UNSET = msgspec.UNSET


class _Out(msgspec.Struct, kw_only=True, rename="camel"):
    pass


class JsonPointerError(_Out, kw_only=True):
    """One way a JSON value failed its schema: where (a JSON Pointer) and why."""

    pointer: str
    message: str


class Problem(_Out, kw_only=True):
    """RFC 9457 problem details with a stable ``code``. The other members are each carried
    by the codes named: ``field`` (the offending input, most 400s), ``errors``
    (``payload_schema_invalid``, ``example_invalid``), ``attribute`` (``cloudevent_*``),
    ``eventId`` and ``payloadDigest`` (``event_payload_conflict``: the digest stored),
    ``etag``, ``currentGeneration`` or ``currentVersion`` (412: what is current),
    ``retryAfterS`` (429), ``state`` and ``command`` (a transition the state forbids),
    ``id`` (``consumer_exists``), ``dialect``, ``path``, ``position`` (``filter_invalid``),
    ``declared`` (``event_version_undeclared``: the majors there are), ``pattern`` and
    ``positions`` (``pattern_too_complex``), ``kind`` and ``line`` (``transformation_failed``),
    ``url`` (``egress_refused``), ``subscriptionId``, ``deliveryId``, ``deliveredDigest``,
    ``receiptDigest`` (a receipt's refusal or conflict), ``rolloutId``, ``keyId``,
    ``keyState``, ``stage``, ``percent``, ``sourceKeyId``, ``sourceKeyState`` (a rollout's or
    a key's refusal)."""

    type: str
    title: str
    status: int
    detail: str | U = UNSET
    code: str
    field: str | U = UNSET
    errors: list[JsonPointerError] | U = UNSET
    attribute: str | U = UNSET
    event_id: str | U = UNSET
    payload_digest: str | U = UNSET
    etag: str | U = UNSET
    current_generation: int | U = UNSET
    current_version: int | U = UNSET
    retry_after_s: int | U = UNSET
    state: str | U | None = UNSET
    id: str | U = UNSET
    command: str | U = UNSET
    dialect: str | U = UNSET
    path: str | U = UNSET
    position: int | U = UNSET
    declared: list[int | str] | U = UNSET
    pattern: str | U = UNSET
    positions: int | U | None = UNSET
    kind: str | U = UNSET
    line: int | U | None = UNSET
    url: str | U | None = UNSET
    subscription_id: str | U | None = UNSET
    delivery_id: str | U | None = UNSET
    delivered_digest: str | U | None = UNSET
    receipt_digest: str | U | None = UNSET
    operation_id: str | U | None = UNSET
    rollout_id: str | U | None = UNSET
    key_id: str | U | None = UNSET
    key_state: str | U | None = UNSET
    stage: str | U | None = UNSET
    percent: int | U | None = UNSET
    source_key_id: str | U | None = UNSET
    source_key_state: str | U | None = UNSET


class Jwk(msgspec.Struct, kw_only=True):
    """A public Ed25519 key as a JWK (RFC 8037): ``kty`` OKP, ``crv`` Ed25519, ``x`` the
    key (base64url); the engine's keys add ``kid``, ``alg``, ``use``, their ``state``,
    ``keyGeneration``, ``maxMessageLifetime`` (seconds), ``nbf`` and ``exp``."""

    kty: Literal["OKP"]
    crv: Literal["Ed25519"]
    x: str
    kid: str | U = UNSET
    alg: Literal["EdDSA"] | U = UNSET
    use: Literal["sig"] | U = UNSET
    state: str | U = UNSET
    keyGeneration: int | U = UNSET
    maxMessageLifetime: int | float | U | None = UNSET
    nbf: int | U = UNSET
    exp: int | U = UNSET


class RetryPolicyView(_Out, kw_only=True):
    max_attempts: int
    initial_delay_s: float
    max_delay_s: float
    multiplier: float
    retry_after_cap_s: float
    on_gone: Literal["suspend", "dead_letter"]


class ReceiptKeyView(_Out, kw_only=True):
    """The key the subscriber signs its challenge proofs and receipts with (public)."""

    key_id: str
    public_key_jwk: Jwk
    generation: int


class AuthView(_Out, kw_only=True):
    """What a reader may see of ``auth``: its kind, a digest and the public parts; never a
    secret."""

    type: Literal["mtls", "oauth2", "header"]
    digest: str
    name: str | U = UNSET
    token_url: str | U = UNSET
    client_id: str | U = UNSET
    certificate_sha256: str | U = UNSET


class RateLimitView(_Out, kw_only=True):
    per_second: float
    burst: int


class DestinationView(_Out, kw_only=True):
    """A broker destination as normalised, its URI without credentials and the digests
    (never the credentials); a relay is ``{"type": "relay"}`` alone."""

    type: Literal["amqp", "nats", "relay"]
    url: str | U = UNSET
    uri: str | U = UNSET
    destination_digest: str | U = UNSET
    exchange: str | U = UNSET
    routing_key: str | U = UNSET
    subject: str | U = UNSET
    stream: str | U = UNSET
    credentials_digest: str | U = UNSET


class PendingChallenge(_Out, kw_only=True):
    challenge_id: str
    generation: int
    expires_at: str


class ChallengeOutcome(_Out, kw_only=True):
    """A challenge run now: passed, or the reason it did not (``location``: a redirect's
    target; ``awaitingResponse``: a broker challenge waits for its consumer's answer;
    ``promotedKeyId``: a secret rotation's next secret proved and promoted)."""

    challenge_id: str
    passed: bool
    reason: str | None
    location: str | U = UNSET
    awaiting_response: bool | U = UNSET
    promoted_key_id: str | U = UNSET


class AmqpAnswer(_Out, kw_only=True):
    confirmed: bool | U = UNSET
    nacked: bool | U = UNSET
    returned: bool | U = UNSET
    reply_code: int | U | None = UNSET
    reply_text: str | U | None = UNSET


class JetStreamAnswer(_Out, kw_only=True):
    stream: str | U | None = UNSET
    seq: int | U | None = UNSET
    duplicate: bool | U = UNSET
    domain: str | U | None = UNSET


class BrokerAnswer(_Out, kw_only=True):
    """A broker's answer to one publish, as its tenant sees it (never a credential)."""

    type: str | None
    outcome: str | None
    code: str | None
    destination: str | None
    message_id: str | None
    amqp: AmqpAnswer | None
    jetstream: JetStreamAnswer | None
    published: bool
    peer_address: str | None
    peer_port: int | None
    tls: bool
    spki_sha256: str | None
    connection_reused: bool
    credentials_digest: str | None


class DeadLetterInfo(_Out, kw_only=True):
    """A dead letter's owner, reason and the requests that replay or skip it."""

    owner: str | None
    reason: str | None
    replay: str
    skip: str


class OrderingGap(msgspec.Struct, kw_only=True):
    """Aggregate versions given up after ``waitedS`` seconds."""

    from_: int = msgspec.field(name="from")
    to: int
    waitedS: float


class OrderingInfo(_Out, kw_only=True):
    aggregate_id: str
    aggregate_version: int
    gap_timeout_s: float
    gaps_skipped: list[OrderingGap]


class ApplicationReceiptView(_Out, kw_only=True):
    """The signed receipt that confirmed the delivery applied."""

    operation_id: str
    result: str
    applied_at: str
    receipt_key_id: str | None
    receipt_key_generation: int | None
    confirmed_at: str


class ReceiptConflictView(_Out, kw_only=True):
    """A receipt quarantined: its payloadDigest is not the delivered one."""

    receipt_digest: str
    operation_id: str
    at: str


#: a JSON value of the caller's (a payload, an example, a schema): any JSON
JsonValue = Any
