"""Events of tenants (``tenant-<id>``) and subscriptions (``subscription-<id>``).

No event carries a secret: API tokens and shared secrets live hashed or encrypted in their own
tables and are referenced here by id.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET, UnsetType

from .catalogue import Event

__all__ = [
    "ChallengeFailed",
    "ChallengeIssued",
    "ChallengePassed",
    "ChallengePublished",
    "DestinationConfig",
    "DriftDetected",
    "EndpointAuthRef",
    "FilterSpec",
    "RateLimit",
    "ReceiptKey",
    "RetryPolicy",
    "SubscriptionAuthChanged",
    "SubscriptionConfig",
    "SubscriptionRegistered",
    "SubscriptionStateChanged",
    "SubscriptionUpdated",
    "TenantCreated",
    "TokenIssued",
    "TokenRevoked",
    "TransformationSpec",
    "subscription_id_of",
    "subscription_stream_id",
    "tenant_stream_id",
]


class RetryPolicy(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Exponential back-off with full jitter, capped; ``Retry-After`` honoured up to a cap."""

    max_attempts: int = 8
    initial_delay_s: float = 5.0
    max_delay_s: float = 3600.0
    multiplier: float = 2.0
    retry_after_cap_s: float = 3600.0
    on_gone: str = "suspend"  # what a 410 does: "suspend" | "dead_letter"


class ReceiptKey(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    key_id: str
    public_key_jwk: dict[str, Any]
    generation: int = 1


class DestinationConfig(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A broker destination as normalised (DESIGN.md section 13): every bound field, the
    connection URL and the signed ``@destination`` URI. Never a credential: the sealed
    credentials are referenced by ``credentials_id`` and bound by their keyed digest."""

    #: "amqp" | "nats" | "relay" or an installed kind's name (its members in ``fields``). A relay
    #: (``hookproof listen``, DESIGN.md 11) is scheme "http", ``url`` = ``uri`` = the local
    #: loopback receiver the relay forwards to, and no credentials.
    type: str
    scheme: str
    host: str
    port: int
    url: str
    uri: str
    digest: str
    vhost: str | None = None
    exchange: str | None = None
    routing_key: str | None = None
    subject: str | None = None
    stream: str | None = None
    credentials_id: str | None = None
    credentials_digest: str | None = None
    #: a kind that declares its members (an installed kind, DESIGN.md 15): its public members
    #: as checked (``engine.destinations.fields``); its secrets are sealed as credentials
    fields: dict[str, Any] | None = None

    @property
    def is_relay(self) -> bool:
        """A development relay (``hookproof listen``), not a broker."""
        return self.type == "relay"


class RateLimit(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """At most ``burst + per_second * t`` requests in any window of ``t`` seconds, across all
    workers and daemons (the bucket lives in Postgres, taken inside the claim)."""

    per_second: float
    burst: int


class EndpointAuthRef(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How the engine authenticates to the endpoint (DESIGN.md section 14), without a secret.

    ``type``: ``mtls``, ``oauth2`` or ``header``. ``digest``: ``hmac-sha256:<hex>`` keyed under
    the master key over the whole credential; ``material_id``: the row of
    ``endpoint_auth_material`` holding it, encrypted. The rest is not secret: the header's
    name, the token URL and client id, the client certificate's SHA-256 (its identity).
    """

    type: str
    digest: str
    material_id: str
    name: str | None = None
    token_url: str | None = None
    client_id: str | None = None
    certificate_sha256: str | None = None


class FilterSpec(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A subscription's ``filters`` (DESIGN.md section 16) as written: the expressions (all
    must hold), their digest (sha-256 of their canonical JSON) and ``index_key``, the digest
    of the one equality every event they hold for satisfies (None: no such equality), by
    which planning narrows the subscriptions it evaluates."""

    expressions: list[Any]
    digest: str
    index_key: str | None = None


class TransformationSpec(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A subscription's ``transformation`` (DESIGN.md section 17): the language, the code of
    ``function handler(webhook)`` (the Svix contract) and its digest (hex sha-256 of the
    code's UTF-8 bytes, the one the attempts' evidence records)."""

    language: str
    code: str
    digest: str


class SubscriptionConfig(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Everything a subscription binds, for one generation."""

    endpoint: str
    endpoint_digest: str
    topics: list[str]
    #: the legacy ``filter`` (dotted payload paths), kept only in events written before
    #: ``filters``: a subscription written since holds it converted, in ``filters``
    filter: dict[str, Any] | None = None
    filters: FilterSpec | None = None
    event_versions: list[int]
    region: str
    signature_algorithm: str
    retry_policy: RetryPolicy = RetryPolicy()
    expires_at: str | None = None
    owner: str
    receipt_key: ReceiptKey | None = None
    old_generation_policy: str = "drain"
    secret_key_id: str | None = None  # hmac-sha256: the key-material row of the shared secret
    signature_profile: str = "hookproof.sig.v1"  # or "standard-webhooks.v1"
    ordering: str = "none"  # or "aggregate": one aggregateId at a time, in aggregateVersion order
    ordering_gap_timeout_s: float = 60.0  # how long a missing version is waited for
    consumer_id: str | None = None  # the tenant's consumer it belongs to (immutable)
    #: a broker or a relay instead of the HTTPS endpoint (``endpoint`` is then the broker's
    #: destination URI, or the relay's local receiver)
    destination: DestinationConfig | None = None
    auth: EndpointAuthRef | None = None  # changed by subscription.auth_changed, no new generation
    rate_limit: RateLimit | None = None  # a PATCH changes it in the same generation
    #: the delivery format (DESIGN.md section 16): "hookproof", "cloudevents-structured" or
    #: "cloudevents-binary" (a bound field: a new generation)
    format: str = "hookproof"
    transformation: TransformationSpec | None = None  # a bound field: a change is a generation


class TenantCreated(Event, frozen=True, kw_only=True, tag="tenant.created"):
    tenant_id: str
    name: str


class TokenIssued(Event, frozen=True, kw_only=True, tag="tenant.token_issued"):
    tenant_id: str
    token_id: str


class TokenRevoked(Event, frozen=True, kw_only=True, tag="tenant.token_revoked"):
    tenant_id: str
    token_id: str


class SubscriptionRegistered(Event, frozen=True, kw_only=True, tag="subscription.registered"):
    subscription_id: str
    tenant_id: str
    generation: int
    config: SubscriptionConfig
    at: str


class SubscriptionUpdated(Event, frozen=True, kw_only=True, tag="subscription.updated"):
    """A change; ``generation`` is the generation after it (raised when binding changed)."""

    subscription_id: str
    generation: int
    previous_generation: int
    changed: list[str]
    config: SubscriptionConfig
    at: str


class SubscriptionAuthChanged(Event, frozen=True, kw_only=True, tag="subscription.auth_changed"):
    """The endpoint authentication changed (``auth`` None: removed); the generation stays."""

    subscription_id: str
    generation: int
    auth: EndpointAuthRef | None
    at: str


class SubscriptionStateChanged(Event, frozen=True, kw_only=True, tag="subscription.state_changed"):
    """A state transition by ``command``; ``generation`` after it (revoke raises it)."""

    subscription_id: str
    command: str
    from_state: str
    to_state: str
    generation: int
    reason: str | None = None
    at: str


class ChallengeIssued(Event, frozen=True, kw_only=True, tag="subscription.challenge_issued"):
    subscription_id: str
    challenge_id: str
    generation: int
    endpoint_digest: str
    nonce_sha256: str
    key_id: str
    expires_at: str
    at: str


class ChallengePassed(Event, frozen=True, kw_only=True, tag="subscription.challenge_passed"):
    subscription_id: str
    challenge_id: str
    generation: int
    key_id: str
    peer_address: str | None
    resolved_addresses: list[str]
    spki_sha256: str | None
    issuer: str | None = None
    at: str
    #: the forward proxy the challenge went through (``HOOKPROOF_EGRESS_PROXY``; the peer
    #: above is then the vetted address the tunnel reached); written only then
    proxy: str | UnsetType = UNSET


class ChallengePublished(Event, frozen=True, kw_only=True, tag="subscription.challenge_published"):
    """A broker challenge the broker confirmed (DESIGN.md 13): the consumer answers through
    ``POST /v1/challenges/{id}/response``. ``broker``: what the broker returned (no secret)."""

    subscription_id: str
    challenge_id: str
    generation: int
    peer_address: str | None
    resolved_addresses: list[str]
    spki_sha256: str | None = None
    broker: dict[str, Any]
    at: str


class ChallengeFailed(Event, frozen=True, kw_only=True, tag="subscription.challenge_failed"):
    subscription_id: str
    challenge_id: str
    generation: int
    reason: str
    detail: str | None = None
    location: str | None = None
    #: ``bad_status``: the HTTP status the endpoint answered the challenge with
    status: int | None = None
    at: str
    #: as in :class:`ChallengePassed`: the forward proxy asked for the tunnel, and the vetted
    #: address the tunnel reached (when it reached one); written only with a proxy
    proxy: str | UnsetType = UNSET
    peer_address: str | UnsetType = UNSET


class DriftDetected(Event, frozen=True, kw_only=True, tag="subscription.drift_detected"):
    subscription_id: str
    generation: int
    reason: str
    addresses: list[str]
    spki_sha256: str | None = None
    at: str


SUBSCRIPTION_PREFIX = "subscription-"


def subscription_stream_id(subscription_id: str) -> str:
    """The stream of one subscription: ``subscription-<subscriptionId>``."""
    return f"{SUBSCRIPTION_PREFIX}{subscription_id}"


def subscription_id_of(stream_id: str) -> str | None:
    """The subscription id of a subscription stream's id; None for any other stream."""
    if stream_id.startswith(SUBSCRIPTION_PREFIX):
        return stream_id[len(SUBSCRIPTION_PREFIX) :]
    return None


def tenant_stream_id(tenant_id: str) -> str:
    """The stream of one tenant and its API tokens: ``tenant-<tenantId>``."""
    return f"tenant-{tenant_id}"
